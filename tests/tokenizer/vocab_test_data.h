// Reads the llama.cpp tokenizer reference vectors in tests/data/vocab
// (format in tests/data/vocab/README.md).
#pragma once

#include <string>
#include <vector>

#include "tokenizer/vocab.h"

namespace trit::testing {

struct VocabCase {
  std::string text;
  std::vector<tokenizer::TokenId> ids;
};

// The cases of "<dir>/<name>.inp" and "<dir>/<name>.out"; throws std::runtime_error
// (naming the file) when they are missing or do not pair up.
std::vector<VocabCase> ReadVocabCases(const std::string& inp_path, const std::string& out_path);

// Every ggml-vocab-*.gguf under tests/data/vocab, by file name.
std::vector<std::string> VocabFileNames();

std::string VocabDataPath(const std::string& file_name);

}  // namespace trit::testing
