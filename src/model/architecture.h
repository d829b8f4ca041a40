// The architecture registry: one entry per supported `general.architecture`,
// each defined in its own file (llama.cpp, qwen2.cpp, ...). Adding an
// architecture is one file and one line in registry.cpp.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "formats/gguf/reader.h"
#include "model/encoder.h"
#include "model/model.h"

namespace trit::model {

// An architecture either generates text (`load`) or embeds it
// (`load_encoder`); the other entry is nullptr.
struct Architecture {
  std::string_view name;  // as in general.architecture
  // Reads hyper-parameters, binds weights and takes ownership of the mapping.
  Expected<std::unique_ptr<Model>> (*load)(gguf::File file, const LoadOptions& options) = nullptr;
  Expected<std::unique_ptr<Encoder>> (*load_encoder)(gguf::File file, const LoadOptions& options) = nullptr;
};

const Architecture& LlamaArchitecture();
const Architecture& Qwen2Architecture();
const Architecture& Qwen3Architecture();
const Architecture& Qwen3MoeArchitecture();
const Architecture& GptOssArchitecture();
const Architecture& Qwen35Architecture();
const Architecture& GemmaArchitecture();
const Architecture& Gemma2Architecture();
const Architecture& Gemma3Architecture();
const Architecture& Gemma4Architecture();
const Architecture& BitnetArchitecture();
const Architecture& BitnetB158Architecture();
const Architecture& BertArchitecture();

// Every registered architecture, in registry order.
std::span<const Architecture* const> Architectures();
// nullptr when `name` is not registered.
const Architecture* FindArchitecture(std::string_view name);

}  // namespace trit::model
