#include "formats/hwx/hwx_report.h"

#include <fmt/format.h>

#include "formats/binfmt/binary_view.h"
#include "formats/hwx/clean.h"
#include "formats/hwx/registers.h"

namespace trit::hwx {

using nlohmann::ordered_json;

Expected<HwxInput> LoadHwxInput(const std::string& path) {
  Expected<MappedFile> file = MappedFile::Open(path);
  if (!file.ok()) return file.status();
  HwxInput in;
  in.path = path;
  in.file = std::move(*file);
  const std::span<const uint8_t> bytes = in.file.bytes();
  if (hwx::HasHwxMagic(bytes)) {
    Expected<hwx::HwxFile> f = hwx::ReadHwx(bytes);
    if (!f.ok()) return f.status().WithContext(path);
    in.hwx = std::move(*f);
  } else if (hwx::LooksLikeAne(bytes)) {
    Expected<hwx::AneFile> f = hwx::ReadAne(bytes);
    if (!f.ok()) return f.status().WithContext(path);
    in.ane = std::move(*f);
  } else {
    return Error(ErrorCode::kCorrupt, "{}: neither an HWX file (magic 0xbeefface) nor a driver .ane file", path);
  }
  return in;
}

std::string ChainLayout(const std::vector<hwx::Descriptor>& descriptors) {
  if (descriptors.empty()) return "none";
  const hwx::Layout first = descriptors.front().layout;
  for (const hwx::Descriptor& d : descriptors) {
    if (d.layout != first) return "mixed";
  }
  return std::string(hwx::LayoutName(first));
}

namespace {

bool AnyIdleKernelDma(const std::vector<hwx::Descriptor>& descriptors) {
  for (const hwx::Descriptor& d : descriptors) {
    if (hwx::HasIdleKernelDmaState(d)) return true;
  }
  return false;
}

std::string Hex(uint64_t v) { return fmt::format("{:#x}", v); }

std::string JoinNumbers(const std::vector<uint32_t>& v) {
  std::string s;
  for (uint32_t x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s.empty() ? "-" : s;
}

ordered_json FieldsJson(const hwx::RegisterInfo* info, uint32_t value) {
  ordered_json j = ordered_json::object();
  for (const hwx::FieldValue& f : hwx::DecodeFields(info, value)) j[f.name] = f.value;
  return j;
}

std::string FieldsText(const hwx::RegisterInfo* info, uint32_t value) {
  std::string s;
  for (const hwx::FieldValue& f : hwx::DecodeFields(info, value)) {
    s += fmt::format("{}{}={:#x}", s.empty() ? "" : " ", f.name, f.value);
  }
  return s;
}

std::string Shape(const hwx::Buffer& b) {
  if (!b.shape) return "(no shape)";
  const auto& s = *b.shape;
  return fmt::format("{}x{}x{}x{} strides {} {} {} {}", s.extent[0], s.extent[1], s.extent[2], s.extent[3], s.stride[0],
                     s.stride[1], s.stride[2], s.stride[3]);
}

std::string DescriptorLine(size_t k, const hwx::Descriptor& d) {
  const hwx::BaseSelectors s = hwx::SelectorsOf(d);
  return fmt::format("  descriptor {} at byte {:#x}: {:#x} bytes, {}, {} packets, {} register writes; reads BAR {}, "
                     "writes BAR {}, kernels BAR {}{}{}\n",
                     k, d.offset, d.size, hwx::LayoutName(d.layout), d.packets.size(), d.writes.size(),
                     JoinNumbers(s.reads), JoinNumbers(s.writes), JoinNumbers(s.kernels),
                     hwx::UsesKernelDma(d) ? "; fetches weights (kernel DMA enabled)" : "",
                     hwx::HasIdleKernelDmaState(d) ? "; kernel-DMA state set with no channel enabled" : "");
}

ordered_json DescriptorJson(size_t k, const hwx::Descriptor& d) {
  const hwx::BaseSelectors s = hwx::SelectorsOf(d);
  return {{"index", k},
          {"offset", d.offset},
          {"size", d.size},
          {"layout", hwx::LayoutName(d.layout)},
          {"packets", d.packets.size()},
          {"register_writes", d.writes.size()},
          {"reads_bar", s.reads},
          {"writes_bar", s.writes},
          {"kernels_bar", s.kernels},
          {"uses_kernel_dma", hwx::UsesKernelDma(d)},
          {"idle_kernel_dma_state", hwx::HasIdleKernelDmaState(d)}};
}

}  // namespace

std::string LayoutSummary(const std::vector<hwx::Descriptor>& descriptors) {
  std::string s = ChainLayout(descriptors);
  if (descriptors.size() > 1) s += fmt::format(", chained ({} descriptors)", descriptors.size());
  if (AnyIdleKernelDma(descriptors)) s += " + extra kernel-DMA state";
  return s;
}

std::string InspectText(const HwxInput& in) {
  std::string t;
  const auto& descs = in.descriptors();
  std::string sizes;
  for (const hwx::Descriptor& d : descs) sizes += (sizes.empty() ? "" : ", ") + Hex(d.size);
  if (in.ane) {
    const hwx::AneHeader& h = in.ane->header;
    t += fmt::format("{}: Linux driver .ane file\n", in.path);
    t += fmt::format("task: {:#x} bytes, {} descriptor(s), first {:#x} bytes\n", h.tsk_size, h.td_count, h.td_size);
    t += fmt::format("layout: {} (descriptor sizes {})\n", LayoutSummary(descs), sizes);
    for (size_t k = 0; k < descs.size(); ++k) t += DescriptorLine(k, descs[k]);
    t += fmt::format("weights: {:#x} bytes\n", h.krn_size);
    t += fmt::format("buffers: {} input(s), {} output(s)\n", h.src_count, h.dst_count);
    for (int i = 1; i < hwx::kAneSlots; ++i) {
      if (h.tiles[i] == 0) continue;
      const auto& n = h.nchw[i];
      t += fmt::format("  slot {}: {} tiles, {}x{}x{}x{}, plane stride {}, row stride {}\n", i, h.tiles[i], n[0], n[1],
                       n[2], n[3], n[4], n[5]);
    }
    return t;
  }
  const hwx::HwxFile& f = *in.hwx;
  t += fmt::format("{}: ANE HWX, {} (cputype {:#x}, cpusubtype {})\n", in.path,
                   f.generation.empty() ? "unknown generation" : f.generation, f.cputype, f.cpusubtype);
  t += fmt::format("compiler: {}\n", f.compiler.empty() ? "(not named)" : f.compiler);
  t += fmt::format("task: {:#x} bytes at {:#x} (file byte {:#x}), {} descriptor(s)\n", f.task_size, f.task_address,
                   f.task_offset, descs.size());
  t += fmt::format("layout: {} (descriptor sizes {})\n", LayoutSummary(descs), sizes);
  for (size_t k = 0; k < descs.size(); ++k) t += DescriptorLine(k, descs[k]);
  t += fmt::format("weights: {:#x} bytes at {:#x} (file byte {:#x})\n", f.weights_size, f.weights_address,
                   f.weights_offset);
  t += "buffers:\n";
  for (const hwx::Buffer& b : f.buffers) {
    t += fmt::format("  {} {} BAR {} {} {} ({:#x} bytes at {:#x})\n", binfmt::Printable(b.name), hwx::BufferRoleName(b.role),
                     b.bar >= 0 ? std::to_string(b.bar) : std::string("-"), Shape(b),
                     b.type_name.empty() ? "?" : binfmt::Printable(b.type_name), b.size, b.address);
  }
  if (!f.aliases.empty()) {
    t += "aliases and internal buffers (not model tensors):";
    for (const hwx::Alias& a : f.aliases) t += fmt::format(" {}", binfmt::Printable(a.name));
    t += "\n";
  }
  for (const hwx::Note& n : f.notes) {
    t += fmt::format("{}: byte {:#x}: {}\n", n.inconsistent ? "unknown/inconsistent" : "not decoded", n.offset, n.what);
  }
  return t;
}

ordered_json InspectJson(const HwxInput& in) {
  const auto& descs = in.descriptors();
  ordered_json j;
  j["path"] = in.path;
  j["format"] = in.hwx ? "hwx" : "ane";
  ordered_json jd = ordered_json::array();
  for (size_t k = 0; k < descs.size(); ++k) jd.push_back(DescriptorJson(k, descs[k]));
  if (in.ane) {
    const hwx::AneHeader& h = in.ane->header;
    j["layout"] = ChainLayout(descs);
    j["layout_summary"] = LayoutSummary(descs);
    j["task_size"] = h.tsk_size;
    j["descriptors"] = jd;
    j["weights_size"] = h.krn_size;
    j["src_count"] = h.src_count;
    j["dst_count"] = h.dst_count;
    ordered_json slots = ordered_json::array();
    for (int i = 0; i < hwx::kAneSlots; ++i) {
      if (h.tiles[i] == 0) continue;
      ordered_json s = {{"slot", i}, {"tiles", h.tiles[i]}};
      if (i > 0) {
        const auto& n = h.nchw[i];
        s["nchw"] = {n[0], n[1], n[2], n[3]};
        s["plane_stride"] = n[4];
        s["row_stride"] = n[5];
      }
      slots.push_back(s);
    }
    j["slots"] = slots;
    return j;
  }
  const hwx::HwxFile& f = *in.hwx;
  j["generation"] = f.generation.empty() ? ordered_json(nullptr) : ordered_json(f.generation);
  j["cputype"] = f.cputype;
  j["cpusubtype"] = f.cpusubtype;
  j["compiler"] = f.compiler;
  j["layout"] = ChainLayout(descs);
  j["layout_summary"] = LayoutSummary(descs);
  j["idle_kernel_dma_state"] = AnyIdleKernelDma(descs);
  j["task"] = {{"address", f.task_address}, {"offset", f.task_offset}, {"size", f.task_size}};
  j["thread_record"] = {{"descriptor_words", f.record_words}, {"descriptor_count", f.record_count}};
  j["descriptors"] = jd;
  j["weights"] = {{"address", f.weights_address}, {"offset", f.weights_offset}, {"size", f.weights_size}};
  ordered_json bufs = ordered_json::array();
  for (const hwx::Buffer& b : f.buffers) {
    ordered_json jb = {{"name", b.name},
                       {"role", hwx::BufferRoleName(b.role)},
                       {"bar", b.bar >= 0 ? ordered_json(b.bar) : ordered_json(nullptr)},
                       {"address", b.address},
                       {"size", b.size},
                       {"data_size", b.data_size}};
    if (b.shape) {
      jb["nchw"] = b.shape->extent;
      jb["strides"] = b.shape->stride;
    } else {
      jb["nchw"] = nullptr;
      jb["strides"] = nullptr;
    }
    jb["dtype"] = b.type_name.empty() ? ordered_json(nullptr) : ordered_json(b.type_name);
    bufs.push_back(jb);
  }
  j["buffers"] = bufs;
  ordered_json aliases = ordered_json::array();
  for (const hwx::Alias& a : f.aliases) aliases.push_back({{"name", a.name}, {"offset", a.offset}});
  j["aliases"] = aliases;
  ordered_json notes = ordered_json::array();
  for (const hwx::Note& n : f.notes) {
    notes.push_back({{"offset", n.offset}, {"kind", n.inconsistent ? "inconsistent" : "not_decoded"}, {"what", n.what}});
  }
  j["notes"] = notes;
  return j;
}

std::string RegsText(const HwxInput& in) {
  std::string t;
  if (in.hwx && in.hwx->cpusubtype != 4) {
    t += fmt::format("note: register names are H13's; this file is cpusubtype {}\n", in.hwx->cpusubtype);
  }
  const auto& descs = in.descriptors();
  for (size_t k = 0; k < descs.size(); ++k) {
    const hwx::Descriptor& d = descs[k];
    t += fmt::format("descriptor {} at byte {:#x} ({}, {:#x} bytes)\n", k, d.offset, hwx::LayoutName(d.layout), d.size);
    for (uint32_t i = 0; i < hwx::kHeaderWords; ++i) {
      const hwx::RegisterInfo* info = hwx::FindH13HeaderWord(i);
      t += fmt::format("  @{:#07x} {:>9} {:<36} = {:#010x}  {}\n", d.offset + 4 * i, "header",
                       hwx::HeaderWordName(i), d.header[i], FieldsText(info, d.header[i]));
    }
    for (const hwx::RegisterWrite& w : d.writes) {
      const hwx::RegisterInfo* info = hwx::FindH13Register(w.address);
      t += fmt::format("  @{:#07x} {:#9x} {:<36} = {:#010x}  {}\n", w.offset, w.address, hwx::RegisterName(w.address),
                       w.value, FieldsText(info, w.value));
    }
  }
  return t;
}

ordered_json RegsJson(const HwxInput& in) {
  ordered_json j;
  j["path"] = in.path;
  j["format"] = in.hwx ? "hwx" : "ane";
  ordered_json jd = ordered_json::array();
  const auto& descs = in.descriptors();
  for (size_t k = 0; k < descs.size(); ++k) {
    const hwx::Descriptor& d = descs[k];
    ordered_json header = ordered_json::array();
    for (uint32_t i = 0; i < hwx::kHeaderWords; ++i) {
      header.push_back({{"index", i},
                        {"offset", d.offset + 4 * i},
                        {"name", hwx::HeaderWordName(i)},
                        {"value", d.header[i]},
                        {"fields", FieldsJson(hwx::FindH13HeaderWord(i), d.header[i])}});
    }
    ordered_json writes = ordered_json::array();
    for (const hwx::RegisterWrite& w : d.writes) {
      writes.push_back({{"offset", w.offset},
                        {"address", w.address},
                        {"name", hwx::RegisterName(w.address)},
                        {"value", w.value},
                        {"fields", FieldsJson(hwx::FindH13Register(w.address), w.value)}});
    }
    jd.push_back({{"index", k},
                  {"offset", d.offset},
                  {"size", d.size},
                  {"layout", hwx::LayoutName(d.layout)},
                  {"header", header},
                  {"writes", writes}});
  }
  j["descriptors"] = jd;
  return j;
}

namespace {

std::string Value(const std::optional<uint32_t>& v) { return v ? fmt::format("{:#x}", *v) : "(not written)"; }

}  // namespace

std::string DiffText(const std::vector<hwx::Difference>& diffs, const HwxInput& a, const HwxInput& b) {
  std::string t;
  for (const hwx::Difference& d : diffs) {
    std::string fields;
    for (const hwx::FieldChange& f : d.fields) {
      fields += fmt::format("{}{} {:#x} -> {:#x}", fields.empty() ? " (" : ", ", f.name, f.a, f.b);
    }
    if (!fields.empty()) fields += ")";
    const std::string where = d.header ? std::string("header") : fmt::format("{:#x}", d.address);
    t += fmt::format("descriptor {} {} {}: {} -> {}{}\n", d.descriptor, where, d.name, Value(d.a), Value(d.b), fields);
  }
  t += diffs.empty() ? fmt::format("identical: {} and {} write the same registers ({} vs {} descriptors)\n", a.path,
                                   b.path, a.descriptors().size(), b.descriptors().size())
                     : fmt::format("{} difference(s) between {} and {} ({} vs {} descriptors)\n", diffs.size(), a.path,
                                   b.path, a.descriptors().size(), b.descriptors().size());
  return t;
}

ordered_json DiffJson(const std::vector<hwx::Difference>& diffs, const HwxInput& a, const HwxInput& b) {
  ordered_json list = ordered_json::array();
  for (const hwx::Difference& d : diffs) {
    ordered_json fields = ordered_json::array();
    for (const hwx::FieldChange& f : d.fields) fields.push_back({{"name", f.name}, {"a", f.a}, {"b", f.b}});
    list.push_back({{"descriptor", d.descriptor},
                    {"kind", d.header ? "header" : "register"},
                    {"address", d.address},
                    {"name", d.name},
                    {"a", d.a ? ordered_json(*d.a) : ordered_json(nullptr)},
                    {"b", d.b ? ordered_json(*d.b) : ordered_json(nullptr)},
                    {"fields", fields}});
  }
  return {{"a", a.path},
          {"b", b.path},
          {"descriptors", {a.descriptors().size(), b.descriptors().size()}},
          {"identical", diffs.empty()},
          {"differences", list}};
}

}  // namespace trit::hwx
