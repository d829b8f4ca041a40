// SHA-256 (FIPS 180-4), for fingerprints of outputs such as `trit verify`'s
// logits hash. Not constant-time; not for secrets.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace trit {

class Sha256 {
 public:
  Sha256();

  void Update(std::span<const uint8_t> bytes);
  void Update(std::string_view text);
  // The digest of everything given so far. The object must not be updated after.
  std::array<uint8_t, 32> Finish();
  // Finish() as 64 lower-case hex digits.
  std::string FinishHex();

 private:
  void Compress(const uint8_t* block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

// The hex digest of `bytes` in one call.
std::string Sha256Hex(std::span<const uint8_t> bytes);

}  // namespace trit
