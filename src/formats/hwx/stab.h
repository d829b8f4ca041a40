// The stabs type strings the ANE compiler gives each tensor:
//   NAME:tID=ar1;0;N;ID=sSTRIDEn:ar1;0;C;ID=sSTRIDEc:ar1;0;H;ID=sSTRIDEh:ar1;0;W;ID=sSTRIDEw:TYPE
// extents and byte strides of n, c, h, w and the element type id (an N_LSYM
// "float16:t5=r1;2;0" entry names id 5).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace trit::hwx {

struct TensorStab {
  std::string name;
  std::array<uint64_t, 4> extent{};  // n, c, h, w
  std::array<uint64_t, 4> stride{};  // bytes
  int type_id = -1;
};

// nullopt when `text` is not a tensor stab (the element type entries, or
// anything else); never throws.
std::optional<TensorStab> ParseTensorStab(std::string_view text);

// "float16:t5=r1;2;0" -> {"float16", 5}; nullopt for anything else.
struct TypeStab {
  std::string name;
  int id = -1;
};
std::optional<TypeStab> ParseTypeStab(std::string_view text);

}  // namespace trit::hwx
