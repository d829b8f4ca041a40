// Constructors of the per-model tokenizers, used by Tokenizer::FromGguf.
// Internal to tokenizer/.
#pragma once

#include <memory>

#include "base/status.h"
#include "tokenizer/tokenizer.h"

namespace trit::tokenizer {

Expected<std::unique_ptr<Tokenizer>> MakeSpmTokenizer(Vocab vocab);  // spm_tokenizer.cpp
Expected<std::unique_ptr<Tokenizer>> MakeBpeTokenizer(Vocab vocab);  // bpe_tokenizer.cpp (refuses an unknown .pre by name)
Expected<std::unique_ptr<Tokenizer>> MakeWpmTokenizer(Vocab vocab);  // wpm_tokenizer.cpp

}  // namespace trit::tokenizer
