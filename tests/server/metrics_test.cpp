// /metrics: the per-key counters appear under each key's label, declared
// keys from the start, and the totals still count every request.
#include "server/metrics.h"

#include <gtest/gtest.h>

namespace trit::server {
namespace {

TEST(Metrics, CountersByApiKeyLabel) {
  Metrics m;
  EXPECT_EQ(m.Render({}).find("trit_key_"), std::string::npos);  // no keys, no per-key lines
  m.DeclareKey("alice");
  m.DeclareKey("bob");
  m.CountKeyRequest("alice");
  m.CountKeyRequest("alice");
  m.AddTokens(10, 4, "alice");
  m.AddTokens(3, 2, "");  // a request without a key counts in the totals only
  const std::string text = m.Render({});
  for (const char* line : {"trit_key_requests_total{key=\"alice\"} 2\n", "trit_key_requests_total{key=\"bob\"} 0\n",
                           "trit_key_prompt_tokens_total{key=\"alice\"} 10\n",
                           "trit_key_generated_tokens_total{key=\"alice\"} 4\n",
                           "trit_key_generated_tokens_total{key=\"bob\"} 0\n", "trit_prompt_tokens_total 13\n",
                           "trit_generated_tokens_total 6\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
}

}  // namespace
}  // namespace trit::server
