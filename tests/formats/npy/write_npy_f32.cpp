// write_npy_f32 OUT ROWS COLS [VALUE...]: writes a float32 (ROWS, COLS) .npy
// file with formats/npy's writer, the values given row-major (missing ones
// are 0). tests/python/npy_compare_test.py has numpy read what it writes:
// trit has no command of its own that writes .npy yet.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "formats/npy/npy_file.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: write_npy_f32 OUT ROWS COLS [VALUE...]\n");
    return 2;
  }
  const long long rows = std::atoll(argv[2]);
  const long long cols = std::atoll(argv[3]);
  if (rows < 0 || cols < 0 || rows * cols < argc - 4) {
    std::fprintf(stderr, "write_npy_f32: %lld x %lld cannot hold %d values\n", rows, cols, argc - 4);
    return 2;
  }
  std::vector<float> values(static_cast<size_t>(rows * cols), 0.0f);
  for (int i = 4; i < argc; ++i) values[static_cast<size_t>(i - 4)] = std::strtof(argv[i], nullptr);
  const trit::Status s = trit::npy::WriteF32File(argv[1], rows, cols, values);
  if (!s.ok()) {
    std::fprintf(stderr, "write_npy_f32: %s\n", s.message().c_str());
    return 1;
  }
  return 0;
}
