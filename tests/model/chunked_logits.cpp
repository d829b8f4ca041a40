#include "model/chunked_logits.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "runtime/session.h"

namespace trit::testing {

std::vector<float> ChunkedLogits(const model::Model& m, std::span<const int32_t> ids, size_t chunk, int n_threads,
                                 kernels::KvType kv) {
  runtime::SessionOptions o;
  o.n_threads = n_threads;
  o.kv_type = kv;
  auto s = runtime::Session::Create(m, o);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return {};
  std::vector<float> all;
  for (size_t i = 0; i < ids.size(); i += chunk) {
    const size_t n = std::min(chunk, ids.size() - i);
    Expected<runtime::Logits> l = (*s)->Verify(ids.subspan(i, n));
    EXPECT_TRUE(l.ok()) << l.status().message();
    if (!l.ok()) return {};
    all.insert(all.end(), l->values.begin(), l->values.end());
  }
  return all;
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace trit::testing
