#include "runtime/top_tokens.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace trit::runtime {
namespace {

float Key(float v) { return std::isnan(v) ? -std::numeric_limits<float>::infinity() : v; }

}  // namespace

std::vector<int32_t> TopTokens(std::span<const float> x, int64_t k) {
  const int64_t n = static_cast<int64_t>(x.size());
  k = std::clamp<int64_t>(k, 0, n);
  std::vector<int32_t> ids;
  if (k == 0) return ids;
  const auto better = [&](int32_t a, int32_t b) {
    const float ka = Key(x[static_cast<size_t>(a)]), kb = Key(x[static_cast<size_t>(b)]);
    return ka != kb ? ka > kb : a < b;
  };
  // Keeps the k best of ids in ids[0..k) (unordered) and returns the k-th
  // best's key: a later id can only enter the top k with a larger value.
  const auto shrink = [&] {
    std::nth_element(ids.begin(), ids.begin() + (k - 1), ids.end(), better);
    ids.resize(static_cast<size_t>(k));
    return Key(x[static_cast<size_t>(ids[static_cast<size_t>(k - 1)])]);
  };
  const size_t capacity = static_cast<size_t>(std::max<int64_t>(4 * k, k + 1024));
  ids.reserve(capacity);
  for (int32_t i = 0; i < k; ++i) ids.push_back(i);
  float threshold = shrink();
  const float* v = x.data();
  for (int64_t i = k; i < n; ++i) {
    // NaN compares false: it ranks as -inf, so it never beats a kept value
    // (and loses ties with the lower ids already kept).
    if (v[i] > threshold) {
      ids.push_back(static_cast<int32_t>(i));
      if (ids.size() == capacity) threshold = shrink();
    }
  }
  if (static_cast<int64_t>(ids.size()) > k) shrink();
  std::sort(ids.begin(), ids.end(), better);
  return ids;
}

}  // namespace trit::runtime
