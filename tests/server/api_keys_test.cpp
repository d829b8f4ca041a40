// API keys: the key file's format, the checks on keys and labels, matching,
// and errors that never print a key.
#include "server/api_keys.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace trit::server {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ApiKeyFile, LabelledUnlabelledCommentsAndBlankLines) {
  auto keys = ParseApiKeyFile("# team keys\n\nalice sk-alice-1\r\n  \t\nsk-anon-2\nbob\tsk-bob-3   \n", "keys.txt");
  ASSERT_TRUE(keys.ok()) << keys.status().message();
  ASSERT_EQ(keys->size(), 3u);
  EXPECT_EQ((*keys)[0].label, "alice");
  EXPECT_EQ((*keys)[0].secret, "sk-alice-1");
  EXPECT_EQ((*keys)[1].label, DefaultKeyLabel("sk-anon-2"));
  EXPECT_EQ((*keys)[1].secret, "sk-anon-2");
  EXPECT_EQ((*keys)[2].label, "bob");
  EXPECT_EQ((*keys)[2].secret, "sk-bob-3");
}

TEST(ApiKeyFile, ErrorsNameTheLineButNotTheKey) {
  auto three = ParseApiKeyFile("ok sk-1\nlabel sk-secret-2 extra\n", "keys.txt");
  ASSERT_FALSE(three.ok());
  EXPECT_EQ(three.status().message(),
            "keys.txt: line 2 has 3 fields; expected 'KEY' or 'LABEL KEY' (the key is not shown)");
  auto none = ParseApiKeyFile("# nothing\n\n", "keys.txt");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "keys.txt: no API key in the file");
}

TEST(ApiKeys, DefaultLabelIsStableAndHidesTheKey) {
  EXPECT_EQ(DefaultKeyLabel("abc"), "key-ba7816bf");  // SHA-256("abc") starts ba7816bf
  EXPECT_NE(DefaultKeyLabel("abd"), DefaultKeyLabel("abc"));
}

TEST(ApiKeys, MatchGivesTheLabel) {
  auto keys = ApiKeys::Create({{"alice", "sk-alice"}, {"bob", "sk-bob"}, {"carol", "sk-bob2"}});
  ASSERT_TRUE(keys.ok()) << keys.status().message();
  ASSERT_NE(keys->Match("sk-alice"), nullptr);
  EXPECT_EQ(*keys->Match("sk-alice"), "alice");
  EXPECT_EQ(*keys->Match("sk-bob"), "bob");
  EXPECT_EQ(*keys->Match("sk-bob2"), "carol");
  for (const char* wrong : {"", "sk-bo", "sk-bob22", "SK-ALICE", "sk-alice ", "x"}) {
    EXPECT_EQ(keys->Match(wrong), nullptr) << wrong;
  }
  EXPECT_EQ(ApiKeys().Match("anything"), nullptr);
  EXPECT_TRUE(ApiKeys().empty());
  EXPECT_EQ(keys->labels(), (std::vector<std::string>{"alice", "bob", "carol"}));
}

TEST(ApiKeys, RefusedKeysAndLabelsNeverShowTheKey) {
  struct Case {
    std::vector<ApiKey> keys;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{{"a", ""}}, "API key 'a' is empty"},
      {{{"a", "sk secret"}}, "API key 'a' holds a space or a control character (it must fit an HTTP header)"},
      {{{"a", "sk\x01secret"}}, "API key 'a' holds a space or a control character (it must fit an HTTP header)"},
      {{{"", "sk-secret"}}, "an API key has an empty label"},
      {{{"a\"b", "sk-secret"}},
       "API key label 'a\"b' must be 1 to 64 letters, digits, '-', '_' or '.' (it appears in /metrics)"},
      {{{"a", "sk-secret"}, {"a", "sk-other"}}, "two API keys are labelled 'a'"},
      {{{"a", "sk-secret"}, {"b", "sk-secret"}}, "API key 'b' is given twice"},
  };
  for (const Case& c : cases) {
    auto keys = ApiKeys::Create(c.keys);
    ASSERT_FALSE(keys.ok()) << c.message;
    EXPECT_EQ(keys.status().message(), c.message);
    EXPECT_THAT(keys.status().message(), Not(HasSubstr("secret")));
  }
}

}  // namespace
}  // namespace trit::server
