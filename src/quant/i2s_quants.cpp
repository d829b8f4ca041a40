#include "quant/i2s_quants.h"

#include <cmath>
#include <cstring>

#include "base/check.h"
#include "base/half.h"
#include "quant/block_formats.h"

namespace trit::quant {
namespace {

int64_t PackedBytes(int64_t n) {
  TRIT_CHECK(n >= 0 && n % kQKI2S == 0);
  return n / 4;
}

// bitnet.cpp's threshold below which a weight counts as zero.
constexpr double kZero = 1e-6;

}  // namespace

uint64_t I2SBytes(int64_t n) { return static_cast<uint64_t>(PackedBytes(n)) + kI2STrailerBytes; }

void UnpackI2S(const uint8_t* packed, int8_t* t, int64_t n) {
  const int64_t nb = PackedBytes(n) / 32;
  for (int64_t i = 0; i < nb; ++i) {
    for (int g = 0; g < 4; ++g) {
      for (int p = 0; p < 32; ++p) {
        t[i * kQKI2S + g * 32 + p] = static_cast<int8_t>(((packed[i * 32 + p] >> (6 - 2 * g)) & 3) - 1);
      }
    }
  }
}

void PackI2S(const int8_t* t, uint8_t* packed, int64_t n) {
  const int64_t nb = PackedBytes(n) / 32;
  for (int64_t i = 0; i < nb; ++i) {
    for (int p = 0; p < 32; ++p) {
      uint8_t b = 0;
      for (int g = 0; g < 4; ++g) {
        const int8_t v = t[i * kQKI2S + g * 32 + p];
        TRIT_CHECK(v >= -1 && v <= 1);
        b = static_cast<uint8_t>(b | ((v + 1) << (6 - 2 * g)));
      }
      packed[i * 32 + p] = b;
    }
  }
}

void WriteI2STrailer(std::span<uint8_t> tensor, int64_t n, float scale) {
  TRIT_CHECK(tensor.size() == I2SBytes(n));
  uint8_t* trailer = tensor.data() + PackedBytes(n);
  std::memset(trailer, 0, kI2STrailerBytes);
  std::memcpy(trailer, &scale, sizeof scale);
}

float I2SScale(std::span<const uint8_t> tensor) {
  TRIT_CHECK(tensor.size() >= kI2STrailerBytes);
  float scale;
  std::memcpy(&scale, tensor.data() + tensor.size() - kI2STrailerBytes, sizeof scale);
  return scale;
}

void DequantizeI2S(std::span<const uint8_t> tensor, float* x, int64_t n) {
  TRIT_CHECK(tensor.size() == I2SBytes(n));
  const float scale = I2SScale(tensor);
  for (int64_t i = 0; i < n / kQKI2S; ++i) {
    for (int g = 0; g < 4; ++g) {
      for (int p = 0; p < 32; ++p) {
        const int t = ((tensor[static_cast<size_t>(i * 32 + p)] >> (6 - 2 * g)) & 3) - 1;
        x[i * kQKI2S + g * 32 + p] = scale * static_cast<float>(t);
      }
    }
  }
}

Status QuantizeI2S(const float* x, int64_t n, float scale_multiplier, std::span<uint8_t> tensor) {
  TRIT_CHECK(tensor.size() == I2SBytes(n));
  double amax = 0;
  for (int64_t i = 0; i < n; ++i) amax = std::fmax(amax, std::fabs(static_cast<double>(x[i])));
  for (int64_t i = 0; i < n; ++i) {
    const double a = std::fabs(static_cast<double>(x[i]));
    if (a >= kZero && std::fabs(a - amax) > 1e-3 * amax) {
      return Error(ErrorCode::kInvalidArgument,
                   "value {} at element {} is not +-{} or 0: I2_S holds one scale per tensor, so only weights "
                   "that are already ternary (a BitNet checkpoint) convert exactly (tq2_0 or tq1_0 keep a scale "
                   "per 256 values)",
                   x[i], i, amax);
    }
  }
  const int64_t nb = PackedBytes(n) / 32;
  for (int64_t i = 0; i < nb; ++i) {
    for (int p = 0; p < 32; ++p) {
      uint8_t b = 0;
      for (int g = 0; g < 4; ++g) {
        const double a = static_cast<double>(x[i * kQKI2S + g * 32 + p]);
        const int code = std::fabs(a) < kZero ? 1 : (a > 0 ? 2 : 0);
        b = static_cast<uint8_t>(b | (code << (6 - 2 * g)));
      }
      tensor[static_cast<size_t>(i * 32 + p)] = b;
    }
  }
  WriteI2STrailer(tensor, n, static_cast<float>(amax) * scale_multiplier);
  return Status::Ok();
}

void I2SRowToTQ2_0(std::span<const uint8_t> tensor, int64_t n_cols, int64_t row, uint8_t* out) {
  TRIT_CHECK(n_cols > 0 && n_cols % kQK_K == 0);
  const uint64_t row_bytes = static_cast<uint64_t>(n_cols) / 4;
  TRIT_CHECK(tensor.size() >= (static_cast<uint64_t>(row) + 1) * row_bytes + kI2STrailerBytes);
  const uint8_t* src = tensor.data() + static_cast<uint64_t>(row) * row_bytes;
  const uint16_t one = FloatToHalf(1.0f);
  auto* blocks = reinterpret_cast<BlockTQ2_0*>(out);
  for (int64_t b = 0; b < n_cols / kQK_K; ++b) {
    BlockTQ2_0& blk = blocks[b];
    for (int k = 0; k < kQK_K / 4; ++k) {
      // Swap the order of the four 2-bit fields: I2_S's field g (bits
      // 6 - 2g) is TQ2_0's field g (bits 2g).
      const uint8_t v = src[b * (kQK_K / 4) + k];
      blk.qs[k] = static_cast<uint8_t>(((v >> 6) & 3) | (((v >> 4) & 3) << 2) | (((v >> 2) & 3) << 4) | ((v & 3) << 6));
    }
    std::memcpy(blk.d, &one, sizeof one);
  }
}

}  // namespace trit::quant
