#include "base/float_text.h"

#include <charconv>
#include <cmath>

namespace trit {

double ShortFloat(float f) {
  if (!std::isfinite(f)) return static_cast<double>(f);
  char buf[64];
  const std::to_chars_result w = std::to_chars(buf, buf + sizeof(buf), f);
  double d = 0.0;
  std::from_chars(buf, w.ptr, d);
  return d;
}

}  // namespace trit
