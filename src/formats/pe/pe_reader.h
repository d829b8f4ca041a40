// PE/COFF (PE32 and PE32+): the import table, the delay-import table (a DLL
// loaded on first call is still a dependency) and the export table.
#pragma once

#include <cstdint>
#include <span>

#include "base/status.h"
#include "formats/binfmt/image.h"

namespace trit::pe {

bool HasPeMagic(std::span<const uint8_t> bytes);  // "MZ"

// Every RVA is mapped through the section table and checked against
// `bytes`; errors name the field and byte offset.
Expected<binfmt::Image> ReadPe(std::span<const uint8_t> bytes);

}  // namespace trit::pe
