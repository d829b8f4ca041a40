#include "bundle/resolve.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "base/mapped_file.h"
#include "formats/binfmt/read_image.h"

namespace trit::bundle {
namespace fs = std::filesystem;

namespace {

std::string DirOf(const std::string& path) {
  const fs::path p = fs::absolute(fs::path(path)).lexically_normal();
  return p.parent_path().string();
}

void ReplaceAll(std::string* s, std::string_view from, const std::string& to) {
  for (size_t at = s->find(from); at != std::string::npos; at = s->find(from, at + to.size())) {
    s->replace(at, from.size(), to);
  }
}

bool StartsWith(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

std::string Join(const std::string& dir, const std::string& rest) {
  return (fs::path(dir) / fs::path(rest)).lexically_normal().string();
}

bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

LoadedBinary LoadBinary(const std::string& path) {
  LoadedBinary out;
  out.path = path;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    out.error = ec ? ec.message() : (fs::exists(path, ec) ? "not a regular file" : "no such file");
    return out;
  }
  Expected<MappedFile> file = MappedFile::Open(path);
  if (!file.ok()) {
    out.error = file.status().message();
    return out;
  }
  Expected<std::vector<binfmt::Image>> images = binfmt::ReadImages(file->bytes());
  if (!images.ok()) {
    out.error = images.status().message();
    return out;
  }
  out.images = std::move(*images);
  return out;
}

bool FileLooksLikeBinary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  uint8_t head[8] = {};
  in.read(reinterpret_cast<char*>(head), sizeof(head));
  return binfmt::LooksLikeBinary(std::span<const uint8_t>(head, static_cast<size_t>(in.gcount())));
}

std::string ExpandSearchEntry(const std::string& entry, const std::string& binary_path,
                              const std::string& executable_dir) {
  const std::string dir = DirOf(binary_path);
  std::string out = entry;
  ReplaceAll(&out, "${ORIGIN}", dir);
  ReplaceAll(&out, "$ORIGIN", dir);
  ReplaceAll(&out, "@loader_path", dir);
  ReplaceAll(&out, "@executable_path", executable_dir.empty() ? dir : executable_dir);
  return fs::path(out).lexically_normal().string();
}

bool IsRelocatableSearchEntry(const std::string& entry) {
  return StartsWith(entry, "$ORIGIN") || StartsWith(entry, "${ORIGIN}") || StartsWith(entry, "@loader_path") ||
         StartsWith(entry, "@executable_path");
}

std::string BaseName(const std::string& name) {
  const size_t slash = name.find_last_of("/\\");
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

std::vector<std::string> CandidatePaths(const binfmt::Image& image, const binfmt::Dependency& dep,
                                        const std::string& binary_path,
                                        const std::vector<std::string>& executable_dirs,
                                        const std::vector<std::string>& extra_rpaths) {
  std::vector<std::string> out;
  const std::string own_dir = DirOf(binary_path);
  const bool is_executable = image.kind.rfind("executable", 0) == 0;
  const std::string exe_dir = is_executable || executable_dirs.empty() ? own_dir : executable_dirs.front();
  switch (image.format) {
    case binfmt::Format::kElf: {
      if (dep.name.find('/') != std::string::npos) {
        out.push_back(fs::path(dep.name).lexically_normal().string());
        break;
      }
      // DT_RUNPATH, when present, replaces DT_RPATH (ld.so(8)).
      const bool has_runpath = std::any_of(image.search_paths.begin(), image.search_paths.end(),
                                           [](const binfmt::SearchPath& p) { return p.kind == binfmt::SearchPathKind::kRunpath; });
      for (const binfmt::SearchPath& p : image.search_paths) {
        if ((p.kind == binfmt::SearchPathKind::kRunpath) != has_runpath) continue;
        out.push_back(Join(ExpandSearchEntry(p.path, binary_path, exe_dir), dep.name));
      }
      break;
    }
    case binfmt::Format::kPe: {
      // The application directory first (the executable's), then the DLL's own.
      const std::string name = BaseName(dep.name);
      if (is_executable) out.push_back(Join(own_dir, name));
      for (const std::string& d : executable_dirs) out.push_back(Join(d, name));
      out.push_back(Join(own_dir, name));
      break;
    }
    case binfmt::Format::kMachO: {
      if (StartsWith(dep.name, "@rpath/")) {
        const std::string rest = dep.name.substr(7);
        for (const binfmt::SearchPath& p : image.search_paths) {
          out.push_back(Join(ExpandSearchEntry(p.path, binary_path, exe_dir), rest));
        }
        for (const std::string& r : extra_rpaths) out.push_back(Join(r, rest));
      } else if (StartsWith(dep.name, "@loader_path/")) {
        out.push_back(Join(own_dir, dep.name.substr(13)));
      } else if (StartsWith(dep.name, "@executable_path/")) {
        if (is_executable) out.push_back(Join(own_dir, dep.name.substr(17)));
        for (const std::string& d : executable_dirs) out.push_back(Join(d, dep.name.substr(17)));
      } else {
        out.push_back(fs::path(dep.name).lexically_normal().string());
      }
      break;
    }
  }
  // Keep the first of duplicates: order is the search order.
  std::vector<std::string> unique;
  for (std::string& c : out) {
    if (std::find(unique.begin(), unique.end(), c) == unique.end()) unique.push_back(std::move(c));
  }
  return unique;
}

std::string FindFile(const std::string& candidate, binfmt::Format format) {
  std::error_code ec;
  if (fs::is_regular_file(candidate, ec)) return candidate;
  if (format != binfmt::Format::kPe) return std::string();
  const fs::path p(candidate);
  const std::string want = p.filename().string();
  for (fs::directory_iterator it(p.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    if (IEquals(it->path().filename().string(), want) && it->is_regular_file(ec)) return it->path().string();
  }
  return std::string();
}

}  // namespace trit::bundle
