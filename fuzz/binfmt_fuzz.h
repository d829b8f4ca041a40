// Shared body of the ELF, PE and Mach-O fuzz targets: parse, then touch
// every string so a bad length or pointer shows under ASan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "formats/binfmt/image.h"

inline void TouchImage(const trit::binfmt::Image& image) {
  size_t total = image.arch.size() + image.kind.size() + image.soname.size();
  for (const auto& d : image.deps) total += d.name.size();
  for (const auto& p : image.search_paths) total += p.path.size();
  for (const auto& s : image.exported) total += s.size();
  for (const auto& s : image.imported) total += s.size();
  for (const auto& [k, v] : image.max_versions) total += k.size() + v.size();
  volatile size_t sink = total;
  (void)sink;
}
