#include "formats/binfmt/read_image.h"

#include "formats/elf/elf_reader.h"
#include "formats/macho/macho_reader.h"
#include "formats/pe/pe_reader.h"

namespace trit::binfmt {

bool LooksLikeBinary(std::span<const uint8_t> bytes) {
  return elf::HasElfMagic(bytes) || pe::HasPeMagic(bytes) || macho::HasMachOMagic(bytes);
}

Expected<std::vector<Image>> ReadImages(std::span<const uint8_t> bytes) {
  auto one = [](Expected<Image> image) -> Expected<std::vector<Image>> {
    if (!image.ok()) return image.status();
    std::vector<Image> images;
    images.push_back(std::move(*image));
    return images;
  };
  if (elf::HasElfMagic(bytes)) return one(elf::ReadElf(bytes));
  if (pe::HasPeMagic(bytes)) return one(pe::ReadPe(bytes));
  if (macho::HasMachOMagic(bytes)) return macho::ReadMachO(bytes);
  return Error(ErrorCode::kUnsupported, "not an ELF, PE or Mach-O file (unrecognised magic at byte 0)");
}

}  // namespace trit::binfmt
