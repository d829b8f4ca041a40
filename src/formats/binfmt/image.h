// What trit reads from an executable or shared library of any format: the
// libraries it needs, where the loader will look for them, its symbols, and
// (ELF) the highest symbol versions it requires. Filled by the ELF, PE and
// Mach-O readers; one Image per architecture slice (a Mach-O universal file
// has several, every other file one).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace trit::binfmt {

enum class Format { kElf, kPe, kMachO };
std::string_view FormatName(Format format);  // "ELF", "PE", "Mach-O"

enum class DepKind {
  kNeeded,    // ELF DT_NEEDED, PE import, Mach-O LC_LOAD_DYLIB
  kDelay,     // PE delay-load import: loaded on first call, still a dependency
  kWeak,      // Mach-O LC_LOAD_WEAK_DYLIB: missing is allowed by the loader
  kReexport,  // Mach-O LC_REEXPORT_DYLIB
};
std::string_view DepKindName(DepKind kind);  // "needed", "delay", "weak", "reexport"

struct Dependency {
  std::string name;  // as stored: "libc.so.6", "KERNEL32.dll", "@rpath/libfoo.dylib"
  DepKind kind = DepKind::kNeeded;
};

enum class SearchPathKind {
  kRpath,    // ELF DT_RPATH, Mach-O LC_RPATH
  kRunpath,  // ELF DT_RUNPATH
};

struct SearchPath {
  std::string path;  // one entry, unexpanded ("$ORIGIN/../lib", "@loader_path/../lib")
  SearchPathKind kind = SearchPathKind::kRpath;
};

struct Image {
  Format format = Format::kElf;
  std::string arch;         // "x86-64", "aarch64", "arm64", "i386", ...
  std::string kind;         // "executable", "shared library", "dll", "dylib", "relocatable", ...
  int bits = 64;            // 32 or 64
  bool big_endian = false;
  std::string soname;       // ELF DT_SONAME, Mach-O LC_ID_DYLIB, PE export directory name
  std::vector<Dependency> deps;
  std::vector<SearchPath> search_paths;
  // Highest version required per prefix from ELF .gnu.version_r:
  // {"GLIBC": "2.34", "GLIBCXX": "3.4.30", "CXXABI": "1.3.13"}.
  std::map<std::string, std::string> max_versions;
  std::vector<std::string> exported;  // dynamic symbols defined here, in table order
  std::vector<std::string> imported;  // dynamic symbols needed from elsewhere (PE: "name" or "#ordinal")
};

// Compares dotted version strings numerically ("2.9" < "2.34"); a
// non-numeric part compares as text.
int CompareVersions(std::string_view a, std::string_view b);

}  // namespace trit::binfmt
