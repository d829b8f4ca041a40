// Checkpoint directories (formats/safetensors/safetensors_index.h): one
// model.safetensors, or shards listed by model.safetensors.index.json. The
// index's fields are refused by name; a set of shards opens to one lookup
// whose bytes are each tensor's; an index and shards that disagree are
// refused naming the tensor and both files.
#include "formats/safetensors/safetensors_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/safetensors/safetensors_test_util.h"

namespace trit::safetensors {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::Counting;
using testing::ScratchDir;
using testing::TestTensor;
using testing::WriteBytes;
using testing::WriteSafetensors;
using testing::WriteText;

constexpr const char* kShard1 = "model-00001-of-00002.safetensors";
constexpr const char* kShard2 = "model-00002-of-00002.safetensors";

std::vector<TestTensor> Shard1() {
  return {{"model.embed_tokens.weight", "BF16", {4, 2}, Counting(16)},
          {"model.layers.0.mlp.weight", "F32", {2}, Counting(8, 50)}};
}
std::vector<TestTensor> Shard2() {
  return {{"lm_head.weight", "F16", {4, 2}, Counting(16, 100)}, {"model.norm.weight", "F32", {2}, Counting(8, 150)}};
}

// The index of Shard1() and Shard2() as transformers writes it.
std::string IndexText(const std::string& extra_entry = "") {
  return std::string(R"({"metadata": {"total_size": 48}, "weight_map": {)") + extra_entry +
         R"("lm_head.weight": "model-00002-of-00002.safetensors",
            "model.embed_tokens.weight": "model-00001-of-00002.safetensors",
            "model.layers.0.mlp.weight": "model-00001-of-00002.safetensors",
            "model.norm.weight": "model-00002-of-00002.safetensors"}})";
}

// A sharded checkpoint in `dir`: the two shards and `index`.
void WriteSharded(const ScratchDir& dir, const std::string& index, const std::vector<TestTensor>& shard1 = Shard1(),
                  const std::vector<TestTensor>& shard2 = Shard2()) {
  WriteBytes(dir.File(kShard1), WriteSafetensors(shard1));
  WriteBytes(dir.File(kShard2), WriteSafetensors(shard2));
  WriteText(dir.File(kIndexFileName), index);
}

std::string IndexError(const std::string& text) {
  Expected<ShardIndex> index = ParseShardIndex(text);
  EXPECT_FALSE(index.ok()) << text;
  return index.ok() ? std::string() : index.status().message();
}

std::string OpenError(const ScratchDir& dir) {
  Expected<Checkpoint> c = OpenCheckpoint(dir.dir());
  EXPECT_FALSE(c.ok());
  return c.ok() ? std::string() : c.status().message();
}

TEST(SafetensorsIndex, ParsesTheWeightMap) {
  Expected<ShardIndex> index = ParseShardIndex(IndexText());
  ASSERT_TRUE(index.ok()) << index.status().message();
  EXPECT_EQ(index->weight_map.size(), 4u);
  EXPECT_EQ(index->weight_map.at("lm_head.weight"), kShard2);
  EXPECT_EQ(index->shards, (std::vector<std::string>{kShard1, kShard2}));
  // "metadata" is optional.
  EXPECT_TRUE(ParseShardIndex(R"({"weight_map": {"a": "x.safetensors"}})").ok());
}

TEST(SafetensorsIndex, RefusesMalformedFieldsByName) {
  EXPECT_THAT(IndexError("{\"weight_map\": "), StartsWith("the index is not valid JSON: "));
  EXPECT_EQ(IndexError("[]"), "the index is an array, expected a JSON object");
  EXPECT_EQ(IndexError(R"({"metadata": {}})"), "the index has no 'weight_map'");
  EXPECT_EQ(IndexError(R"({"weight_map": {"a": "x"}, "weights": {}})"),
            "the index: unknown key 'weights' (known: metadata, weight_map)");
  EXPECT_EQ(IndexError(R"({"weight_map": ["x"]})"),
            "weight_map: expected an object of tensor name -> shard file, found an array");
  EXPECT_EQ(IndexError(R"({"weight_map": {}})"), "weight_map: names no tensor");
  EXPECT_EQ(IndexError(R"({"weight_map": {"a": 1}})"), "weight_map 'a': expected a shard file name, found 1");
  EXPECT_EQ(IndexError(R"({"metadata": [], "weight_map": {"a": "x"}})"), "metadata: expected an object, found an array");
  EXPECT_EQ(IndexError(R"({"weight_map": {"a": "x", "a": "y"}})"), "weight_map: tensor 'a' appears twice");
  EXPECT_EQ(IndexError(R"({"weight_map": {"a": "x"}, "weight_map": {"a": "x"}})"),
            "the index: key 'weight_map' appears twice");
  EXPECT_EQ(IndexError(std::string(40, '[') + std::string(40, ']')), "the index nests deeper than 16 levels");
}

TEST(SafetensorsIndex, ShardNamesArePlainFileNames) {
  for (const char* bad : {"../model.safetensors", "sub/model.safetensors", "/etc/passwd", "..", ".", "",
                          "a\\\\b.safetensors"}) {
    const std::string text = std::string(R"({"weight_map": {"w": ")") + bad + "\"}}";
    EXPECT_THAT(IndexError(text), HasSubstr("is not a plain file name in the index's directory")) << bad;
  }
  EXPECT_TRUE(IsPlainShardName("model-00001-of-00002.safetensors"));
  EXPECT_TRUE(IsPlainShardName("..model.safetensors"));
  EXPECT_FALSE(IsPlainShardName(std::string_view("a\0b", 3)));
  EXPECT_FALSE(IsPlainShardName(std::string(256, 'a')));
  EXPECT_EQ(IndexError(R"({"weight_map": {"w": "../x"}})"),
            "weight_map 'w': '../x' is not a plain file name in the index's directory (no '/', '\\', '.' or '..')");
}

TEST(SafetensorsIndex, OpensASingleFileCheckpoint) {
  ScratchDir dir;
  ASSERT_TRUE(dir.ok());
  WriteBytes(dir.File(kSingleFileName), WriteSafetensors(Shard1()));
  Expected<Checkpoint> c = OpenCheckpoint(dir.dir());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->files().size(), 1u);
  EXPECT_TRUE(c->index_path().empty());
  EXPECT_EQ(c->n_tensors(), 2u);
  for (const TestTensor& t : Shard1()) {
    std::optional<ShardTensor> found = c->Find(t.name);
    ASSERT_TRUE(found.has_value()) << t.name;
    EXPECT_EQ(std::vector<uint8_t>(found->Data().begin(), found->Data().end()), t.data);
  }
}

TEST(SafetensorsIndex, OpensShardsAsOneLookup) {
  ScratchDir dir;
  ASSERT_TRUE(dir.ok());
  WriteSharded(dir, IndexText());
  Expected<Checkpoint> c = OpenCheckpoint(dir.dir());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->index_path(), dir.File(kIndexFileName));
  ASSERT_EQ(c->files().size(), 2u);
  EXPECT_EQ(c->files()[0].path(), dir.File(kShard1));
  EXPECT_EQ(c->n_tensors(), 4u);

  std::vector<TestTensor> all = Shard1();
  for (const TestTensor& t : Shard2()) all.push_back(t);
  for (const TestTensor& t : all) {
    std::optional<ShardTensor> found = c->Find(t.name);
    ASSERT_TRUE(found.has_value()) << t.name;
    EXPECT_EQ(found->tensor->name, t.name);
    EXPECT_EQ(found->tensor->shape, t.shape);
    EXPECT_EQ(std::vector<uint8_t>(found->Data().begin(), found->Data().end()), t.data) << t.name;
  }
  EXPECT_EQ(c->Find("model.embed_tokens"), std::nullopt);

  std::vector<std::string> names;
  for (const ShardTensor& t : c->Tensors()) names.push_back(t.tensor->name);
  EXPECT_EQ(names, (std::vector<std::string>{"lm_head.weight", "model.embed_tokens.weight",
                                             "model.layers.0.mlp.weight", "model.norm.weight"}));
  EXPECT_EQ(c->Find("lm_head.weight")->file, &c->files()[1]);

  // Pointers stay valid when the checkpoint moves.
  const ShardTensor before = *c->Find("model.norm.weight");
  Checkpoint moved = std::move(*c);
  EXPECT_EQ(moved.Find("model.norm.weight")->tensor, before.tensor);
  EXPECT_EQ(std::vector<uint8_t>(before.Data().begin(), before.Data().end()), Shard2()[1].data);
}

TEST(SafetensorsIndex, APlainModelFileIsPreferredToAnIndex) {
  ScratchDir dir;
  ASSERT_TRUE(dir.ok());
  WriteSharded(dir, IndexText());
  WriteBytes(dir.File(kSingleFileName), WriteSafetensors(Shard1()));
  Expected<Checkpoint> c = OpenCheckpoint(dir.dir());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->files().size(), 1u);
  EXPECT_EQ(c->files()[0].path(), dir.File(kSingleFileName));
}

TEST(SafetensorsIndex, RefusesAnIndexThatDisagreesWithItsShards) {
  ScratchDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string index = dir.File(kIndexFileName);

  // The map puts a tensor in the wrong shard.
  std::string text = IndexText();
  const std::string from = R"("model.norm.weight": "model-00002)";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), R"("model.norm.weight": "model-00001)");
  WriteSharded(dir, text);
  EXPECT_EQ(OpenError(dir), index +
                                ": weight_map puts tensor 'model.norm.weight' in 'model-00001-of-00002.safetensors', "
                                "which has no such tensor (it is in 'model-00002-of-00002.safetensors')");

  // The map lists a tensor that no shard holds.
  WriteSharded(dir, IndexText(R"("ghost": "model-00001-of-00002.safetensors", )"));
  EXPECT_EQ(OpenError(dir),
            index + ": weight_map puts tensor 'ghost' in 'model-00001-of-00002.safetensors', which has no such tensor");

  // A shard holds a tensor the map does not list.
  std::vector<TestTensor> extra = Shard2();
  extra.push_back({"extra.bias", "F32", {1}, Counting(4)});
  WriteSharded(dir, IndexText(), Shard1(), extra);
  EXPECT_EQ(OpenError(dir),
            index + ": shard 'model-00002-of-00002.safetensors' holds tensor 'extra.bias', which weight_map does not list");

  // A tensor in two shards: the one the map does not name is refused.
  extra = Shard2();
  extra.push_back(Shard1()[1]);
  WriteSharded(dir, IndexText(), Shard1(), extra);
  EXPECT_EQ(OpenError(dir), index +
                                ": shard 'model-00002-of-00002.safetensors' holds tensor 'model.layers.0.mlp.weight', "
                                "which weight_map puts in 'model-00001-of-00002.safetensors'");
}

TEST(SafetensorsIndex, ShardErrorsNameTheIndexAndTheShard) {
  ScratchDir dir;
  ASSERT_TRUE(dir.ok());
  WriteSharded(dir, IndexText());
  std::filesystem::remove(dir.File(kShard2));
  EXPECT_THAT(OpenError(dir), StartsWith(dir.File(kIndexFileName) + ": shard 'model-00002-of-00002.safetensors': " +
                                         dir.File(kShard2) + ": cannot open"));

  WriteBytes(dir.File(kShard2), {1, 2, 3});
  EXPECT_EQ(OpenError(dir), dir.File(kIndexFileName) + ": shard 'model-00002-of-00002.safetensors': " +
                                dir.File(kShard2) + ": the file is 3 bytes, too short for the 8-byte header length");

  WriteText(dir.File(kIndexFileName), R"({"weight_map": {"w": "../model.safetensors"}})");
  EXPECT_EQ(OpenError(dir), dir.File(kIndexFileName) +
                                ": weight_map 'w': '../model.safetensors' is not a plain file name in the index's "
                                "directory (no '/', '\\', '.' or '..')");
}

TEST(SafetensorsIndex, ADirectoryWithNeitherFileIsNotFound) {
  ScratchDir dir;
  ASSERT_TRUE(dir.ok());
  Expected<Checkpoint> c = OpenCheckpoint(dir.dir());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(c.status().message(), dir.dir() +
                                      ": no model.safetensors and no model.safetensors.index.json: not a safetensors "
                                      "checkpoint directory");
}

}  // namespace
}  // namespace trit::safetensors
