// struct_size: older, current and newer option structs across the boundary.
#include "api/c_struct.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace trit::api {
namespace {

struct Options {  // a stand-in for an ABI struct: version 1 ended after `a`
  size_t struct_size;
  int32_t a;
  int32_t b;
};
constexpr size_t kV1 = offsetof(Options, b);

TEST(ApiCStructTest, CurrentStructIsCopied) {
  Options in{sizeof(Options), 3, 4};
  Options out{0, -1, -1};
  ASSERT_EQ(ReadCStruct(&in, "options", kV1, &out), TRIT_STATUS_OK);
  EXPECT_EQ(out.struct_size, sizeof(Options));
  EXPECT_EQ(out.a, 3);
  EXPECT_EQ(out.b, 4);
}

TEST(ApiCStructTest, OlderStructKeepsTheDefaultsOfNewerFields) {
  Options in{kV1, 3, 99};  // b lies past what the (older) caller set
  Options out{0, -1, 7};
  ASSERT_EQ(ReadCStruct(&in, "options", kV1, &out), TRIT_STATUS_OK);
  EXPECT_EQ(out.a, 3);
  EXPECT_EQ(out.b, 7);
}

TEST(ApiCStructTest, TooSmallIsRefusedByName) {
  Options in{0, 3, 4};  // struct_size never set
  Options out{};
  EXPECT_EQ(ReadCStruct(&in, "trit_x_options", kV1, &out), TRIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(trit_last_error()).find("trit_x_options.struct_size is 0"), std::string::npos)
      << trit_last_error();
}

TEST(ApiCStructTest, NewerStructOnlyWhenItsExtraFieldsAreZero) {
  struct Newer {
    Options base;
    int64_t extra;
  };
  Newer in{};
  in.base = {sizeof(Newer), 3, 4};
  Options out{};
  ASSERT_EQ(ReadCStruct(&in.base, "options", kV1, &out), TRIT_STATUS_OK);
  EXPECT_EQ(out.a, 3);
  in.extra = 1;
  EXPECT_EQ(ReadCStruct(&in.base, "options", kV1, &out), TRIT_STATUS_UNSUPPORTED);
  EXPECT_NE(std::string(trit_last_error()).find("does not know"), std::string::npos) << trit_last_error();
}

TEST(ApiCStructTest, WriteStopsAtTheCallersSize) {
  Options value{sizeof(Options), 5, 6};
  Options out{kV1, 0, -1};
  ASSERT_EQ(WriteCStruct(value, "result", kV1, &out), TRIT_STATUS_OK);
  EXPECT_EQ(out.struct_size, kV1);  // the caller's, kept
  EXPECT_EQ(out.a, 5);
  EXPECT_EQ(out.b, -1);  // past the caller's struct: not written
  Options bad{0, 0, 0};
  EXPECT_EQ(WriteCStruct(value, "result", kV1, &bad), TRIT_STATUS_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace trit::api
