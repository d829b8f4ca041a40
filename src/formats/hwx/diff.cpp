#include "formats/hwx/diff.h"

#include <map>

#include "formats/hwx/registers.h"

namespace trit::hwx {

RegisterState StateOf(const Descriptor& d) {
  std::map<uint32_t, uint32_t> values;
  RegisterState s;
  for (const RegisterWrite& w : d.writes) {
    if (!values.emplace(w.address, w.value).second) {
      values[w.address] = w.value;
      s.repeated.push_back(w.address);
    }
  }
  s.values.assign(values.begin(), values.end());
  return s;
}

namespace {

std::vector<FieldChange> FieldChanges(const RegisterInfo* info, uint32_t a, uint32_t b) {
  std::vector<FieldChange> out;
  const std::vector<FieldValue> fa = DecodeFields(info, a), fb = DecodeFields(info, b);
  // "unnamed" appears only when non-zero, so match by name.
  std::map<std::string, std::pair<uint32_t, uint32_t>> both;
  for (const FieldValue& f : fa) both[f.name].first = f.value;
  for (const FieldValue& f : fb) both[f.name].second = f.value;
  if (info != nullptr) {
    for (uint32_t i = 0; i < info->n_fields; ++i) {
      const auto& [x, y] = both[info->fields[i].name];
      if (x != y) out.push_back({info->fields[i].name, x, y});
    }
  }
  const auto& [x, y] = both["unnamed"];
  if (x != y) out.push_back({"unnamed", x, y});
  return out;
}

void Compare(size_t k, bool header, uint32_t address, std::string name, const RegisterInfo* info,
             std::optional<uint32_t> a, std::optional<uint32_t> b, const DiffOptions& o, std::vector<Difference>* out) {
  const uint32_t va = a.value_or(0), vb = b.value_or(0);
  const bool differ = o.absent_as_zero ? va != vb : a != b;
  if (!differ) return;
  Difference d{k, header, address, std::move(name), a, b, {}};
  if (a && b) d.fields = FieldChanges(info, *a, *b);
  out->push_back(std::move(d));
}

}  // namespace

std::vector<Difference> DiffChains(const std::vector<Descriptor>& a, const std::vector<Descriptor>& b,
                                   const DiffOptions& options) {
  std::vector<Difference> out;
  const size_t n = std::max(a.size(), b.size());
  for (size_t k = 0; k < n; ++k) {
    const Descriptor* da = k < a.size() ? &a[k] : nullptr;
    const Descriptor* db = k < b.size() ? &b[k] : nullptr;
    for (uint32_t i = 0; i < kHeaderWords; ++i) {
      std::optional<uint32_t> ha, hb;
      if (da) ha = da->header[i];
      if (db) hb = db->header[i];
      Compare(k, true, i, HeaderWordName(i), FindH13HeaderWord(i), ha, hb, options, &out);
    }
    std::map<uint32_t, std::pair<std::optional<uint32_t>, std::optional<uint32_t>>> regs;
    if (da) {
      for (const auto& [addr, value] : StateOf(*da).values) regs[addr].first = value;
    }
    if (db) {
      for (const auto& [addr, value] : StateOf(*db).values) regs[addr].second = value;
    }
    for (const auto& [addr, values] : regs) {
      Compare(k, false, addr, RegisterName(addr), FindH13Register(addr), values.first, values.second, options, &out);
    }
  }
  return out;
}

}  // namespace trit::hwx
