#include "formats/safetensors/safetensors_index.h"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "base/mapped_file.h"
#include "formats/safetensors/strict_json.h"

namespace trit::safetensors {

namespace {

using Json = nlohmann::json;

constexpr int kMaxJsonDepth = 16;
constexpr size_t kMaxShardNameBytes = 255;

Status Corrupt(std::string message) { return Status(ErrorCode::kCorrupt, std::move(message)); }

Status ReadWeightMap(const Json& v, ShardIndex* index) {
  if (!v.is_object()) {
    return Corrupt(fmt::format("weight_map: expected an object of tensor name -> shard file, found {}", Found(v)));
  }
  if (v.empty()) return Corrupt("weight_map: names no tensor");
  std::set<std::string> shards;
  for (const auto& [tensor, file] : v.items()) {
    if (!file.is_string()) {
      return Corrupt(fmt::format("weight_map {}: expected a shard file name, found {}", Quoted(tensor), Found(file)));
    }
    const std::string& name = file.get_ref<const std::string&>();
    if (!IsPlainShardName(name)) {
      return Corrupt(fmt::format("weight_map {}: {} is not a plain file name in the index's directory (no '/', '\\', "
                                 "'.' or '..')",
                                 Quoted(tensor), Quoted(name)));
    }
    index->weight_map.emplace(tensor, name);
    shards.insert(name);
  }
  index->shards.assign(shards.begin(), shards.end());
  return Status::Ok();
}

// The index's text from `path`, its size bounded before it is read.
Expected<std::string> ReadIndexText(const std::string& path) {
  Expected<MappedFile> mapped = MappedFile::Open(path);
  if (!mapped.ok()) return mapped.status();
  if (mapped->size() > kMaxHeaderBytes) {
    return Error(ErrorCode::kCorrupt, "{}: {} bytes, larger than the limit of {} bytes", path, mapped->size(),
                 kMaxHeaderBytes);
  }
  return std::string(reinterpret_cast<const char*>(mapped->bytes().data()), mapped->size());
}

}  // namespace

bool IsPlainShardName(std::string_view name) {
  if (name.empty() || name.size() > kMaxShardNameBytes || name == "." || name == "..") return false;
  return name.find_first_of(std::string_view("/\\\0", 3)) == std::string_view::npos;
}

Expected<ShardIndex> ParseShardIndex(std::string_view json_text) {
  if (json_text.size() > kMaxHeaderBytes) {
    return Error(ErrorCode::kCorrupt, "the index is {} bytes, larger than the limit of {} bytes", json_text.size(),
                 kMaxHeaderBytes);
  }
  Expected<StrictJson> parsed = ParseStrictJson(json_text, kMaxJsonDepth, "the index");
  if (!parsed.ok()) return parsed.status();
  if (const auto& dup = parsed->duplicate_key) {
    if (dup->size() == 2 && (*dup)[0] == "weight_map") {
      return Corrupt(fmt::format("weight_map: tensor {} appears twice", Quoted((*dup)[1])));
    }
    return Corrupt(fmt::format("the index: key {} appears twice", Quoted(dup->back())));
  }
  const Json& doc = parsed->doc;
  if (!doc.is_object()) return Corrupt(fmt::format("the index is {}, expected a JSON object", Found(doc)));
  ShardIndex index;
  bool has_weight_map = false;
  for (const auto& [key, value] : doc.items()) {
    if (key == "weight_map") {
      if (Status s = ReadWeightMap(value, &index); !s.ok()) return s;
      has_weight_map = true;
    } else if (key == "metadata") {
      if (!value.is_object()) return Corrupt(fmt::format("metadata: expected an object, found {}", Found(value)));
    } else {
      return Corrupt(fmt::format("the index: unknown key {} (known: metadata, weight_map)", Quoted(key)));
    }
  }
  if (!has_weight_map) return Corrupt("the index has no 'weight_map'");
  return index;
}

std::vector<ShardTensor> Checkpoint::Tensors() const {
  std::vector<ShardTensor> out;
  out.reserve(by_name_.size());
  for (const auto& [name, at] : by_name_) out.push_back(At(at.first, at.second));
  return out;
}

std::optional<ShardTensor> Checkpoint::Find(std::string_view name) const {
  const auto it = by_name_.find(name);
  if (it == by_name_.end()) return std::nullopt;
  return At(it->second.first, it->second.second);
}

ShardTensor Checkpoint::At(size_t file, size_t tensor) const {
  return ShardTensor{&files_[file].tensors()[tensor], &files_[file]};
}

Expected<Checkpoint> OpenShardedCheckpoint(const std::string& index_path) {
  Expected<std::string> text = ReadIndexText(index_path);
  if (!text.ok()) return text.status();
  Expected<ShardIndex> index = ParseShardIndex(*text);
  if (!index.ok()) return index.status().WithContext(index_path);

  Checkpoint checkpoint;
  checkpoint.index_path_ = index_path;
  const std::filesystem::path dir = std::filesystem::path(index_path).parent_path();
  std::map<std::string, size_t, std::less<>> shard_of_file;  // shard name -> position in files_
  for (const std::string& shard : index->shards) {
    Expected<File> file = File::Open((dir / shard).string());
    if (!file.ok()) return file.status().WithContext(fmt::format("{}: shard {}", index_path, Quoted(shard)));
    shard_of_file.emplace(shard, checkpoint.files_.size());
    checkpoint.files_.push_back(std::move(*file));
  }

  // Each tensor of the map in the shard it names ...
  for (const auto& [tensor, shard] : index->weight_map) {
    const size_t f = shard_of_file.at(shard);
    const File& file = checkpoint.files_[f];
    const TensorInfo* info = file.Find(tensor);
    if (info == nullptr) {
      std::string elsewhere;
      for (const File& other : checkpoint.files_) {
        if (other.Find(tensor) != nullptr) {
          elsewhere = fmt::format(" (it is in {})", Quoted(std::filesystem::path(other.path()).filename().string()));
          break;
        }
      }
      return Error(ErrorCode::kCorrupt, "{}: weight_map puts tensor {} in {}, which has no such tensor{}", index_path,
                   Quoted(tensor), Quoted(shard), elsewhere);
    }
    checkpoint.by_name_.emplace(tensor, std::make_pair(f, static_cast<size_t>(info - file.tensors().data())));
  }
  // ... and no shard holding a tensor the map does not put there.
  for (size_t f = 0; f < checkpoint.files_.size(); ++f) {
    for (const TensorInfo& t : checkpoint.files_[f].tensors()) {
      const auto it = index->weight_map.find(t.name);
      if (it != index->weight_map.end() && it->second == index->shards[f]) continue;
      const std::string listed =
          it == index->weight_map.end() ? "which weight_map does not list" : "which weight_map puts in " + Quoted(it->second);
      return Error(ErrorCode::kCorrupt, "{}: shard {} holds tensor {}, {}", index_path, Quoted(index->shards[f]),
                   Quoted(t.name), listed);
    }
  }
  return checkpoint;
}

Expected<Checkpoint> OpenCheckpoint(const std::string& dir) {
  const std::filesystem::path root(dir);
  const std::filesystem::path single = root / kSingleFileName;
  const std::filesystem::path index = root / kIndexFileName;
  std::error_code ec;
  if (std::filesystem::exists(single, ec)) {
    Expected<File> file = File::Open(single.string());
    if (!file.ok()) return file.status();
    Checkpoint checkpoint;
    checkpoint.files_.push_back(std::move(*file));
    const std::vector<TensorInfo>& tensors = checkpoint.files_[0].tensors();
    for (size_t i = 0; i < tensors.size(); ++i) checkpoint.by_name_.emplace(tensors[i].name, std::make_pair(0, i));
    return checkpoint;
  }
  if (std::filesystem::exists(index, ec)) return OpenShardedCheckpoint(index.string());
  return Error(ErrorCode::kNotFound, "{}: no {} and no {}: not a safetensors checkpoint directory", dir, kSingleFileName,
               kIndexFileName);
}

}  // namespace trit::safetensors
