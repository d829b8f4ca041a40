// Hugging Face checkpoints as a directory: one model.safetensors, or shards
// model-00001-of-00003.safetensors ... listed by model.safetensors.index.json:
//
//   {"metadata": {"total_size": 123}, "weight_map": {"tensor name": "model-00001-of-00003.safetensors", ...}}
//
// A Checkpoint opens every shard the index names (plain file names in the
// same directory: no '/', no '\', not "." or "..") and checks the index
// against them: each tensor of the map is in the shard it names, and no
// shard holds a tensor that the map does not put there; errors name the
// tensor and both files. Then it gives one lookup over all shards.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "formats/safetensors/safetensors_file.h"

namespace trit::safetensors {

inline constexpr const char* kSingleFileName = "model.safetensors";
inline constexpr const char* kIndexFileName = "model.safetensors.index.json";

// model.safetensors.index.json. "metadata" (optional) is not read: its
// "total_size" counts bytes as the writer saw them, which need not be the
// files' tensor bytes.
struct ShardIndex {
  std::map<std::string, std::string> weight_map;  // tensor -> shard file name
  std::vector<std::string> shards;                // the distinct file names, sorted
};

// Parses an index's text. Errors are kCorrupt and name the field (and the
// tensor); keys other than "metadata" and "weight_map" are refused.
Expected<ShardIndex> ParseShardIndex(std::string_view json_text);

// Whether `name` may name a shard: a plain file name in the index's
// directory, 1-255 bytes, no '/', '\' or NUL, not "." or "..".
bool IsPlainShardName(std::string_view name);

// A tensor of a checkpoint and the shard that holds it.
struct ShardTensor {
  const TensorInfo* tensor = nullptr;
  const File* file = nullptr;

  // The tensor's bytes in its shard's mapping.
  std::span<const uint8_t> Data() const { return file->Data(*tensor); }
};

// The safetensors files of one checkpoint, mapped; move-only. Pointers it
// hands out stay valid while it lives (moving it keeps them valid too).
class Checkpoint {
 public:
  // The files, one for a single-file checkpoint, else in the index's sorted order.
  const std::vector<File>& files() const { return files_; }
  // The index's path, or empty for a single-file checkpoint.
  const std::string& index_path() const { return index_path_; }
  size_t n_tensors() const { return by_name_.size(); }

  // Every tensor, sorted by name.
  std::vector<ShardTensor> Tensors() const;
  // nullopt when no shard holds the tensor.
  std::optional<ShardTensor> Find(std::string_view name) const;

 private:
  friend Expected<Checkpoint> OpenCheckpoint(const std::string& dir);
  friend Expected<Checkpoint> OpenShardedCheckpoint(const std::string& index_path);

  ShardTensor At(size_t file, size_t tensor) const;

  std::vector<File> files_;
  std::string index_path_;
  std::map<std::string, std::pair<size_t, size_t>, std::less<>> by_name_;  // name -> (file, tensor)
};

// Opens the checkpoint in `dir`: model.safetensors when it is there, else the
// shards model.safetensors.index.json names. kNotFound, naming the directory
// and both file names, when neither is there.
Expected<Checkpoint> OpenCheckpoint(const std::string& dir);

// Opens the shards an index names, from the index's directory, and checks
// the index against them. Errors name the index, the shard and the tensor.
Expected<Checkpoint> OpenShardedCheckpoint(const std::string& index_path);

}  // namespace trit::safetensors
