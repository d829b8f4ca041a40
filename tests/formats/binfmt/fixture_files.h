// The binaries make_fixtures.sh builds at build time (TRIT_BINFMT_FIXTURES),
// for the binfmt and ELF note tests.
#pragma once

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace trit::testing {

inline std::string Fixture(const std::string& relative) { return std::string(TRIT_BINFMT_FIXTURES) + "/" + relative; }

inline std::vector<uint8_t> ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace trit::testing
