// Helpers shared by the quant tests: deterministic data and error measures.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "quant/types.h"

namespace trit::quant::testing {

// n samples of N(mean, stddev^2) from a fixed seed. The Box-Muller transform
// is written out (std::normal_distribution differs between standard
// libraries; std::mt19937 does not).
inline std::vector<float> GaussianData(int64_t n, uint32_t seed, float mean = 0.0f, float stddev = 1.0f) {
  std::mt19937 rng(seed);
  const auto uniform = [&rng] { return (static_cast<double>(rng()) + 0.5) / 4294967296.0; };
  std::vector<float> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i += 2) {
    const double r = std::sqrt(-2.0 * std::log(uniform()));
    const double a = 2.0 * 3.14159265358979323846 * uniform();
    out[i] = static_cast<float>(mean + stddev * r * std::cos(a));
    if (i + 1 < n) out[i + 1] = static_cast<float>(mean + stddev * r * std::sin(a));
  }
  return out;
}

// sqrt(sum (x - y)^2 / sum x^2).
inline double RelativeRmse(const std::vector<float>& x, const std::vector<float>& y) {
  double err = 0.0;
  double ref = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = static_cast<double>(x[i]) - y[i];
    err += d * d;
    ref += static_cast<double>(x[i]) * x[i];
  }
  return ref == 0.0 ? std::sqrt(err) : std::sqrt(err / ref);
}

inline std::vector<uint8_t> Quantize(const TypeInfo& type, const std::vector<float>& x) {
  std::vector<uint8_t> bytes(RowBytes(type, static_cast<int64_t>(x.size())).value());
  type.quantize(x.data(), bytes.data(), static_cast<int64_t>(x.size()));
  return bytes;
}

inline std::vector<float> Dequantize(const TypeInfo& type, const std::vector<uint8_t>& bytes, int64_t n) {
  std::vector<float> out(static_cast<size_t>(n));
  type.dequantize(bytes.data(), out.data(), n);
  return out;
}

inline std::vector<float> RoundTrip(const TypeInfo& type, const std::vector<float>& x) {
  return Dequantize(type, Quantize(type, x), static_cast<int64_t>(x.size()));
}

inline bool AllFinite(const std::vector<float>& v) {
  for (float f : v) {
    if (!std::isfinite(f)) return false;
  }
  return true;
}

}  // namespace trit::quant::testing
