#include "tokenizer/vocab_test_data.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "test_paths.h"

namespace trit::testing {

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

std::string VocabDataPath(const std::string& file_name) { return SourcePath("tests/data/vocab/" + file_name); }

std::vector<VocabCase> ReadVocabCases(const std::string& inp_path, const std::string& out_path) {
  static constexpr std::string_view kSeparator = "\n__ggml_vocab_test__\n";
  const std::string inp = ReadFile(inp_path);
  std::vector<VocabCase> cases;
  size_t start = 0;
  while (start < inp.size()) {
    const size_t end = inp.find(kSeparator, start);
    if (end == std::string::npos) throw std::runtime_error(inp_path + ": text after the last separator");
    cases.push_back({inp.substr(start, end - start), {}});
    start = end + kSeparator.size();
  }
  std::istringstream out(ReadFile(out_path));
  std::string line;
  size_t i = 0;
  while (std::getline(out, line)) {
    if (i >= cases.size()) throw std::runtime_error(out_path + ": more lines than " + inp_path + " has tests");
    std::istringstream ids(line);
    tokenizer::TokenId id;
    while (ids >> id) cases[i].ids.push_back(id);
    ++i;
  }
  if (i != cases.size()) throw std::runtime_error(out_path + ": fewer lines than " + inp_path + " has tests");
  return cases;
}

std::vector<std::string> VocabFileNames() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(SourcePath("tests/data/vocab"))) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("ggml-vocab-") && name.ends_with(".gguf")) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace trit::testing
