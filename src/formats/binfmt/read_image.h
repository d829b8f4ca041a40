// Reads any supported binary: picks the reader by the file's magic bytes.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"
#include "formats/binfmt/image.h"

namespace trit::binfmt {

// True when `bytes` start like an ELF, PE (MZ), Mach-O or universal file.
bool LooksLikeBinary(std::span<const uint8_t> bytes);

// All images of the file (one, or one per slice of a universal Mach-O).
// Errors name the field and the byte offset; unrecognised magic is kUnsupported.
Expected<std::vector<Image>> ReadImages(std::span<const uint8_t> bytes);

}  // namespace trit::binfmt
