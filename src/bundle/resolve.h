// Where the loader of each format looks for a binary's dependencies:
// reading binaries from disk, expanding $ORIGIN / @loader_path /
// @executable_path / @rpath, and the candidate paths of one dependency in
// the order the loader tries them. Pure logic for `trit bundle`.
#pragma once

#include <string>
#include <vector>

#include "formats/binfmt/image.h"

namespace trit::bundle {

// A file read from disk: its images, or why it could not be read.
struct LoadedBinary {
  std::string path;  // as given
  std::vector<binfmt::Image> images;
  std::string error;  // empty when images were read
};

// Reads `path` (mapped) and parses it as ELF, PE or Mach-O.
LoadedBinary LoadBinary(const std::string& path);

// True when the first bytes of the file at `path` are a binary's magic
// (false for unreadable files; LoadBinary reports those).
bool FileLooksLikeBinary(const std::string& path);

// `entry` with $ORIGIN / ${ORIGIN} (ELF) or @loader_path (Mach-O) replaced by
// the directory of `binary_path`, and @executable_path by `executable_dir`
// (or the binary's own directory when that is empty), lexically normalised.
std::string ExpandSearchEntry(const std::string& entry, const std::string& binary_path,
                              const std::string& executable_dir);

// True when an rpath entry is relative to the binary itself ($ORIGIN,
// @loader_path, @executable_path): the bundle can move without breaking it.
bool IsRelocatableSearchEntry(const std::string& entry);

// The paths the loader would try for `dep` of `image` (read from
// `binary_path`), in order. `executable_dirs`: the directories of the
// bundle's executables (PE application directory, @executable_path);
// `extra_rpaths`: LC_RPATH entries of the executables that load this image
// (Mach-O searches the whole load chain), already expanded.
std::vector<std::string> CandidatePaths(const binfmt::Image& image, const binfmt::Dependency& dep,
                                        const std::string& binary_path,
                                        const std::vector<std::string>& executable_dirs,
                                        const std::vector<std::string>& extra_rpaths);

// The file at `candidate`, matching the file name case-insensitively for PE
// (Windows file systems do); empty when there is none.
std::string FindFile(const std::string& candidate, binfmt::Format format);

// The last path component of a dependency name ("@rpath/libz.dylib" -> "libz.dylib").
std::string BaseName(const std::string& name);

}  // namespace trit::bundle
