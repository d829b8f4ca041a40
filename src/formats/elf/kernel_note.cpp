#include "formats/elf/kernel_note.h"

#include <charconv>

#include "formats/binfmt/binary_view.h"  // TRIT_RETURN_IF_ERROR

namespace trit::elf {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

// A positive decimal integer below 2^40 (no sign, no leading '+').
Status PositiveInteger(const std::string& key, const std::string& value, int64_t* out) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size() || v <= 0 || v >= (int64_t{1} << 40)) {
    return Error(ErrorCode::kCorrupt, "trit.kernel note: {}={} is not a positive integer", key, value);
  }
  *out = v;
  return Status::Ok();
}

}  // namespace

Expected<KernelNote> ParseKernelNote(std::span<const uint8_t> desc) {
  std::string text(desc.begin(), desc.end());
  while (!text.empty() && text.back() == '\0') text.pop_back();
  if (text.find('\0') != std::string::npos) {
    return Error(ErrorCode::kCorrupt, "trit.kernel note: a NUL byte inside the text");
  }
  KernelNote note;
  std::map<std::string, std::string> seen;
  size_t at = 0;
  while (at < text.size()) {
    if (IsSpace(text[at])) {
      ++at;
      continue;
    }
    size_t end = at;
    while (end < text.size() && !IsSpace(text[end])) ++end;
    const std::string item = text.substr(at, end - at);
    at = end;
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Error(ErrorCode::kCorrupt, "trit.kernel note: '{}' is not key=value", item);
    }
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (!seen.emplace(key, value).second) return Error(ErrorCode::kCorrupt, "trit.kernel note: {} given twice", key);
  }
  for (const char* key : {"op", "K", "N", "M"}) {
    if (seen.find(key) == seen.end()) {
      return Error(ErrorCode::kCorrupt, "trit.kernel note: no {}= (it needs op, K, N and M)", key);
    }
  }
  for (auto& [key, value] : seen) {
    if (key == "op") {
      if (value.empty()) return Error(ErrorCode::kCorrupt, "trit.kernel note: op= is empty");
      note.op = value;
    } else if (key == "K") {
      TRIT_RETURN_IF_ERROR(PositiveInteger(key, value, &note.k));
    } else if (key == "N") {
      TRIT_RETURN_IF_ERROR(PositiveInteger(key, value, &note.n));
    } else if (key == "M") {
      TRIT_RETURN_IF_ERROR(PositiveInteger(key, value, &note.m));
    } else {
      note.extra.emplace(key, value);
    }
  }
  return note;
}

Expected<KernelNote> FindKernelNote(const std::vector<ElfNote>& notes) {
  const ElfNote* found = nullptr;
  for (const ElfNote& n : notes) {
    if (n.name != kKernelNoteName) continue;
    if (n.type != kKernelNoteType) {
      return Error(ErrorCode::kCorrupt, "a trit.kernel note of type {} (section {}); the type is {}", n.type, n.section,
                   kKernelNoteType);
    }
    if (found != nullptr) {
      return Error(ErrorCode::kCorrupt, "two trit.kernel notes (sections {} and {}); a kernel has one", found->section,
                   n.section);
    }
    found = &n;
  }
  if (found == nullptr) return Error(ErrorCode::kNotFound, "no trit.kernel note (its op, K, N and M)");
  return ParseKernelNote(found->desc);
}

std::string KernelNoteText(const KernelNote& note) {
  std::string text = "op=" + note.op + " K=" + std::to_string(note.k) + " N=" + std::to_string(note.n) +
                     " M=" + std::to_string(note.m);
  for (const auto& [key, value] : note.extra) text += " " + key + "=" + value;
  return text;
}

}  // namespace trit::elf
