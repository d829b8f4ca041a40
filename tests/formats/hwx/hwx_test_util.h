// Reading test files for the hwx tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "test_paths.h"

namespace trit::testing {

inline std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// A file of ../shared/data/ane ("" when absent: the caller skips).
inline std::string AneShared(const std::string& relative) { return SharedDataPath("ane/" + relative); }

#define TRIT_SKIP_WITHOUT(path)                                                  \
  do {                                                                           \
    if ((path).empty()) GTEST_SKIP() << "shared data ../shared/data/ane absent"; \
  } while (0)

}  // namespace trit::testing
