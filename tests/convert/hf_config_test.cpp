// config.json, modules.json and the sentence-transformers Pooling config
// (src/convert/hf_config.*): hand-written texts, each refusal by its message.
#include "convert/hf_config.h"

#include <gtest/gtest.h>

#include <string>

namespace trit::convert {
namespace {

// all-MiniLM-L6-v2's config.json, abridged.
constexpr std::string_view kMiniLmConfig = R"({
  "architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu", "hidden_size": 384,
  "intermediate_size": 1536, "layer_norm_eps": 1e-12, "max_position_embeddings": 512,
  "num_attention_heads": 12, "num_hidden_layers": 6, "pad_token_id": 0, "type_vocab_size": 2,
  "vocab_size": 30522, "hidden_dropout_prob": 0.1, "gradient_checkpointing": false})";

std::string ConfigWith(std::string_view extra) {
  return std::string(R"({"architectures": ["BertModel"], "model_type": "bert", )") + std::string(extra) + "}";
}

std::string ErrorOf(std::string_view text) {
  Expected<HfModelConfig> c = ParseHfConfig(text);
  return c.ok() ? std::string("(parsed)") : c.status().message();
}

TEST(HfConfigTest, ReadsEveryFieldByName) {
  Expected<HfModelConfig> c = ParseHfConfig(kMiniLmConfig);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->architecture, "BertModel");
  EXPECT_EQ(c->model_type, "bert");
  EXPECT_EQ(*c->Int("hidden_size"), 384);
  EXPECT_EQ(*c->Int("num_hidden_layers"), 6);
  EXPECT_EQ(*c->Int("num_attention_heads"), 12);
  EXPECT_EQ(*c->Int("intermediate_size"), 1536);
  EXPECT_EQ(*c->Int("max_position_embeddings"), 512);
  EXPECT_EQ(*c->Int("type_vocab_size"), 2);
  EXPECT_EQ(*c->Int("vocab_size"), 30522);
  EXPECT_DOUBLE_EQ(*c->Float("layer_norm_eps"), 1e-12);
  EXPECT_EQ(*c->String("hidden_act"), "gelu");
}

TEST(HfConfigTest, AMissingFieldIsNamedWhenAsked) {
  Expected<HfModelConfig> c = ParseHfConfig(ConfigWith(R"("hidden_size": 8)"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  Expected<int64_t> n = c->Int("type_vocab_size");
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(n.status().message(), "config.json has no 'type_vocab_size'");
  EXPECT_EQ(c->Float("layer_norm_eps").status().message(), "config.json has no 'layer_norm_eps'");
  EXPECT_EQ(c->String("hidden_act").status().message(), "config.json has no 'hidden_act'");
}

TEST(HfConfigTest, RefusesWrongTypesAndRangesNamingTheKey) {
  EXPECT_EQ(ErrorOf(ConfigWith(R"("hidden_size": -3)")),
            "hidden_size: expected a positive integer below 2^31, found -3");
  EXPECT_EQ(ErrorOf(ConfigWith(R"("hidden_size": "384")")),
            "hidden_size: expected a positive integer below 2^31, found the string '384'");
  EXPECT_EQ(ErrorOf(ConfigWith(R"("vocab_size": 2147483648)")),
            "vocab_size: expected a positive integer below 2^31, found 2147483648");
  EXPECT_EQ(ErrorOf(ConfigWith(R"("num_hidden_layers": 2.5)")),
            "num_hidden_layers: expected a positive integer below 2^31, found 2.5");
  EXPECT_EQ(ErrorOf(ConfigWith(R"("layer_norm_eps": 0)")), "layer_norm_eps: expected a finite number > 0, found 0");
  EXPECT_EQ(ErrorOf(ConfigWith(R"("hidden_act": 1)")), "hidden_act: expected a string, found 1");
  EXPECT_EQ(ErrorOf(R"({"model_type": "bert"})"),
            "config.json has no 'architectures' (the model class, e.g. [\"BertModel\"])");
  EXPECT_EQ(ErrorOf(R"({"architectures": [], "model_type": "bert"})"),
            "architectures: expected a non-empty array of strings, found an array");
  EXPECT_EQ(ErrorOf(R"({"architectures": ["BertModel"]})"), "config.json has no 'model_type'");
  EXPECT_EQ(ErrorOf("[1]"), "config.json: expected an object, found an array");
  EXPECT_EQ(ErrorOf("{"), "config.json is not valid JSON");
  EXPECT_EQ(ErrorOf(std::string(100, '[')), "config.json nests deeper than 64 levels");
}

TEST(HfConfigTest, EveryTableKeyIsCheckedByItsKind) {
  // Each key of HfConfigFields: a value of its kind reads back through its
  // getter; a string where a number belongs, or a number where a string does, is refused by name.
  // Dotted keys are paths into nested objects (tested with the decoders' configs).
  ASSERT_GE(HfConfigFields().size(), 9u);
  for (const HfConfigField& f : HfConfigFields()) {
    const std::string key(f.key);
    if (key.find('.') != std::string::npos) continue;
    switch (f.kind) {
      case HfConfigKind::kPositiveInt:
        EXPECT_EQ(*ParseHfConfig(ConfigWith("\"" + key + "\": 7"))->Int(key), 7) << key;
        EXPECT_EQ(ErrorOf(ConfigWith("\"" + key + "\": \"7\"")),
                  key + ": expected a positive integer below 2^31, found the string '7'");
        break;
      case HfConfigKind::kCount:
        EXPECT_EQ(*ParseHfConfig(ConfigWith("\"" + key + "\": 0"))->Int(key), 0) << key;
        EXPECT_EQ(ErrorOf(ConfigWith("\"" + key + "\": -1")), key + ": expected an integer in 0..2^31 - 1, found -1");
        break;
      case HfConfigKind::kPositiveFloat:
        EXPECT_DOUBLE_EQ(*ParseHfConfig(ConfigWith("\"" + key + "\": 0.25"))->Float(key), 0.25) << key;
        EXPECT_EQ(ErrorOf(ConfigWith("\"" + key + "\": \"0.25\"")),
                  key + ": expected a finite number > 0, found the string '0.25'");
        break;
      case HfConfigKind::kString:
        EXPECT_EQ(*ParseHfConfig(ConfigWith("\"" + key + "\": \"x\""))->String(key), "x") << key;
        EXPECT_EQ(ErrorOf(ConfigWith("\"" + key + "\": 7")), key + ": expected a string, found 7");
        break;
      case HfConfigKind::kBool:
        EXPECT_TRUE(*ParseHfConfig(ConfigWith("\"" + key + "\": true"))->Bool(key)) << key;
        EXPECT_EQ(ErrorOf(ConfigWith("\"" + key + "\": 1")), key + ": expected true or false, found 1");
        break;
      case HfConfigKind::kTokenId:
        EXPECT_EQ(*ParseHfConfig(ConfigWith("\"" + key + "\": 0"))->Int(key), 0) << key;
        EXPECT_EQ(ErrorOf(ConfigWith("\"" + key + "\": -2")), key + ": expected a token id (0 to 2^31 - 1), found -2");
        break;
      case HfConfigKind::kIntList:
        EXPECT_EQ(*ParseHfConfig(ConfigWith("\"" + key + "\": [2, 0, 1]"))->IntList(key),
                  (std::vector<int64_t>{2, 0, 1}))
            << key;
        EXPECT_EQ(ErrorOf(ConfigWith("\"" + key + "\": [1, -1]")),
                  key + "[1]: expected an integer in 0..2^31 - 1, found -1");
        EXPECT_EQ(ErrorOf(ConfigWith("\"" + key + "\": 3")), key + ": expected an array of integers, found 3");
        break;
      case HfConfigKind::kStringList:
        EXPECT_EQ(*ParseHfConfig(ConfigWith("\"" + key + "\": [\"a\", \"b\"]"))->StringList(key),
                  (std::vector<std::string>{"a", "b"}))
            << key;
        EXPECT_EQ(ErrorOf(ConfigWith("\"" + key + "\": [\"a\", 1]")), key + "[1]: expected a string, found 1");
        break;
    }
  }
}

// SpecialVocab's reading: an id >= 0 is taken (0 included), a non-integer
// skipped (Llama 3.1's eos list), a negative one refused.
TEST(HfConfigTest, TokenIdsAreReadAsSpecialVocabReadsThem) {
  Expected<HfModelConfig> c = ParseHfConfig(ConfigWith(
      R"("pad_token_id": 0, "bos_token_id": 128000, "eos_token_id": [128001, 128009], "text_config": {"unk_token_id": 3})"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(*c->Int("pad_token_id"), 0);
  EXPECT_EQ(*c->Int("bos_token_id"), 128000);
  EXPECT_EQ(c->Int("eos_token_id").status().message(), "config.json has no 'eos_token_id'");
  EXPECT_EQ(*c->Int("text_config.unk_token_id"), 3);
  EXPECT_EQ(ErrorOf(ConfigWith(R"("eos_token_id": -1)")), "eos_token_id: expected a token id (0 to 2^31 - 1), found -1");
}

// A multimodal config's text_config wins over the top level, as llama.cpp's
// TextModel merges it; special ids keep the top level first (SpecialVocab).
TEST(HfConfigTest, TextConfigWinsOverTheTopLevelButNotForSpecialIds) {
  Expected<HfModelConfig> c = ParseHfConfig(ConfigWith(
      R"("hidden_size": 8, "bos_token_id": 1, "text_config": {"hidden_size": 64, "layer_types": ["a"], "bos_token_id": 2,
          "rope_parameters": {"mrope_section": [2, 1, 1]}})"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(*c->Int("hidden_size"), 64);
  EXPECT_EQ(*c->StringList("layer_types"), (std::vector<std::string>{"a"}));
  EXPECT_EQ(*c->IntList("rope_parameters.mrope_section"), (std::vector<int64_t>{2, 1, 1}));
  EXPECT_EQ(*c->Int("bos_token_id"), 1);
  EXPECT_EQ(*c->Int("text_config.bos_token_id"), 2);
  EXPECT_EQ(ErrorOf(ConfigWith(R"("text_config": {"hidden_size": "x"})")),
            "text_config.hidden_size: expected a positive integer below 2^31, found the string 'x'");
}

TEST(HfConfigTest, PoolingModuleIsFoundByType) {
  constexpr std::string_view kModules = R"([
    {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
    {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}])";
  Expected<std::optional<std::string>> path = ParsePoolingModulePath(kModules);
  ASSERT_TRUE(path.ok()) << path.status().message();
  EXPECT_EQ(path->value_or("(none)"), "1_Pooling");

  path = ParsePoolingModulePath(R"([{"path": "", "type": "sentence_transformers.models.Transformer"}])");
  ASSERT_TRUE(path.ok());
  EXPECT_FALSE(path->has_value());
}

TEST(HfConfigTest, PoolingModulePathMayNotLeaveTheDirectory) {
  for (const char* p : {"../x", "a/../../x", "/etc", "a\\\\b"}) {
    const std::string text =
        std::string(R"([{"type": "sentence_transformers.models.Pooling", "path": ")") + p + "\"}]";
    Expected<std::optional<std::string>> path = ParsePoolingModulePath(text);
    ASSERT_FALSE(path.ok()) << p;
    EXPECT_NE(path.status().message().find("modules.json[0].path"), std::string::npos) << path.status().message();
  }
  Expected<std::optional<std::string>> path = ParsePoolingModulePath(R"([{"type": 3}])");
  ASSERT_FALSE(path.ok());
  EXPECT_EQ(path.status().message(), "modules.json[0].type: expected a string, found 3");
}

TEST(HfConfigTest, PoolingTypeFollowsTheConvertersOrder) {
  // The enum is what llama.cpp stores in <arch>.pooling_type (gguf-py PoolingType).
  EXPECT_EQ(static_cast<uint32_t>(PoolingType::kNone), 0u);
  EXPECT_EQ(static_cast<uint32_t>(PoolingType::kMean), 1u);
  EXPECT_EQ(static_cast<uint32_t>(PoolingType::kCls), 2u);
  EXPECT_EQ(static_cast<uint32_t>(PoolingType::kLast), 3u);

  // all-MiniLM-L6-v2's 1_Pooling/config.json: no pooling_mode_lasttoken key at all.
  Expected<PoolingType> t = ParsePoolingConfig(
      R"({"word_embedding_dimension": 384, "pooling_mode_cls_token": false, "pooling_mode_mean_tokens": true,
          "pooling_mode_max_tokens": false, "pooling_mode_mean_sqrt_len_tokens": false})");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(*t, PoolingType::kMean);
  EXPECT_EQ(*ParsePoolingConfig(R"({"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false})"),
            PoolingType::kCls);
  EXPECT_EQ(*ParsePoolingConfig(R"({"pooling_mode_lasttoken": true})"), PoolingType::kLast);
  EXPECT_EQ(*ParsePoolingConfig(R"({"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": true})"),
            PoolingType::kMean);
}

TEST(HfConfigTest, PoolingWithoutAGgufTypeIsRefused) {
  Expected<PoolingType> t = ParsePoolingConfig(R"({"pooling_mode_mean_tokens": false, "pooling_mode_max_tokens": true})");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), ErrorCode::kUnsupported);
  EXPECT_EQ(t.status().message(),
            "none of pooling_mode_mean_tokens, pooling_mode_cls_token, pooling_mode_lasttoken is true "
            "(set: 'pooling_mode_max_tokens'): GGUF's pooling types are mean, cls and last");
  t = ParsePoolingConfig(R"({"pooling_mode_mean_tokens": 1})");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "pooling_mode_mean_tokens: expected true or false, found 1");
}

}  // namespace
}  // namespace trit::convert
