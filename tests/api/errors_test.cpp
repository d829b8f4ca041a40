// The C API's error channel: status strings, the per-thread message, and
// exceptions kept on the library's side.
#include "api/errors.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <thread>

extern "C" const char* trit_status_string_of_int_from_c(int status);

namespace trit::api {
namespace {

TEST(ApiErrorsTest, EveryStatusHasAString) {
  EXPECT_STREQ(trit_status_string(TRIT_STATUS_OK), "ok");
  for (int s = TRIT_STATUS_INVALID_ARGUMENT; s <= TRIT_STATUS_INTERNAL; ++s) {
    const std::string text = trit_status_string(static_cast<trit_status>(s));
    EXPECT_NE(text, "unknown status") << s;
    EXPECT_NE(text, "ok") << s;
  }
  // C, not C++, passes an int that names no status (header_c99.c).
  EXPECT_STREQ(trit_status_string_of_int_from_c(99), "unknown status");
}

TEST(ApiErrorsTest, LibraryCodesMapOneToOne) {
  EXPECT_EQ(ToCStatus(ErrorCode::kInvalidArgument), TRIT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(ToCStatus(ErrorCode::kNotFound), TRIT_STATUS_NOT_FOUND);
  EXPECT_EQ(ToCStatus(ErrorCode::kIo), TRIT_STATUS_IO);
  EXPECT_EQ(ToCStatus(ErrorCode::kCorrupt), TRIT_STATUS_CORRUPT);
  EXPECT_EQ(ToCStatus(ErrorCode::kUnsupported), TRIT_STATUS_UNSUPPORTED);
}

TEST(ApiErrorsTest, MessageIsPerThreadAndClearedBySuccess) {
  EXPECT_EQ(Fail(TRIT_STATUS_NOT_FOUND, "m.gguf: no such file"), TRIT_STATUS_NOT_FOUND);
  EXPECT_STREQ(trit_last_error(), "m.gguf: no such file");
  std::string other;
  std::thread([&] { other = trit_last_error(); }).join();
  EXPECT_EQ(other, "");  // another thread never sees this thread's message
  EXPECT_STREQ(trit_last_error(), "m.gguf: no such file");
  EXPECT_EQ(Succeed(), TRIT_STATUS_OK);
  EXPECT_STREQ(trit_last_error(), "");
}

TEST(ApiErrorsTest, ExceptionsBecomeStatuses) {
  EXPECT_EQ(Guarded("f", []() -> trit_status { throw std::bad_alloc(); }), TRIT_STATUS_OUT_OF_MEMORY);
  EXPECT_STREQ(trit_last_error(), "f: out of memory");
  EXPECT_EQ(Guarded("g", []() -> trit_status { throw std::runtime_error("boom"); }), TRIT_STATUS_INTERNAL);
  EXPECT_STREQ(trit_last_error(), "g: internal error: boom");
  EXPECT_EQ(Guarded("h", []() -> trit_status { throw 42; }), TRIT_STATUS_INTERNAL);
  EXPECT_EQ(Guarded("i", [] { return Succeed(); }), TRIT_STATUS_OK);
}

TEST(ApiErrorsTest, Versions) {
  EXPECT_EQ(trit_abi_version(), TRIT_ABI_VERSION);
  const std::string v = trit_version();
  EXPECT_NE(v.find("commit"), std::string::npos) << v;
  EXPECT_EQ(v.find("0."), 0u) << v;
}

}  // namespace
}  // namespace trit::api
