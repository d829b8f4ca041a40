// The caller-buffer protocol: the size needed always reported, data only when it fits.
#include "api/c_buffer.h"

#include <gtest/gtest.h>

#include <vector>

namespace trit::api {
namespace {

TEST(ApiCBufferTest, TextNeedsRoomForItsNul) {
  size_t n = 0;
  EXPECT_EQ(WriteText("hello", nullptr, 0, &n), TRIT_STATUS_BUFFER_TOO_SMALL);
  EXPECT_EQ(n, 5u);
  char small[5] = {'x', 'x', 'x', 'x', 'x'};
  EXPECT_EQ(WriteText("hello", small, sizeof(small), &n), TRIT_STATUS_BUFFER_TOO_SMALL);
  EXPECT_EQ(small[0], 'x');  // nothing written
  char fits[6];
  ASSERT_EQ(WriteText("hello", fits, sizeof(fits), &n), TRIT_STATUS_OK);
  EXPECT_STREQ(fits, "hello");
  EXPECT_EQ(n, 5u);
  EXPECT_EQ(WriteText("hello", fits, sizeof(fits), nullptr), TRIT_STATUS_INVALID_ARGUMENT);
}

TEST(ApiCBufferTest, Ids) {
  const std::vector<int32_t> ids = {1, 2, 3};
  size_t n = 0;
  EXPECT_EQ(WriteIds(ids, nullptr, 0, &n), TRIT_STATUS_BUFFER_TOO_SMALL);
  EXPECT_EQ(n, 3u);
  std::vector<int32_t> out(3, -1);
  ASSERT_EQ(WriteIds(ids, out.data(), out.size(), &n), TRIT_STATUS_OK);
  EXPECT_EQ(out, ids);
  EXPECT_EQ(WriteIds({}, nullptr, 0, &n), TRIT_STATUS_OK);  // no ids fit anywhere
  EXPECT_EQ(n, 0u);
}

}  // namespace
}  // namespace trit::api
