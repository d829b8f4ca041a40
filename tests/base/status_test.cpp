#include "base/status.h"

#include <gtest/gtest.h>

namespace trit {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kOk);
  EXPECT_TRUE(s.message().empty());
}

TEST(StatusTest, ErrorFormatsMessage) {
  Status s = Error(ErrorCode::kCorrupt, "tensor '{}': offset {} past end", "a", 42);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kCorrupt);
  EXPECT_EQ(s.message(), "tensor 'a': offset 42 past end");
}

TEST(StatusTest, WithContextPrefixesErrorsOnly) {
  EXPECT_EQ(Error(ErrorCode::kIo, "boom").WithContext("f.gguf").message(), "f.gguf: boom");
  EXPECT_TRUE(Status::Ok().WithContext("f.gguf").ok());
  EXPECT_EQ(Status::Ok().WithContext("f.gguf").message(), "");
}

TEST(ExpectedTest, HoldsValueOrStatus) {
  Expected<int> v = 7;
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 7);
  EXPECT_TRUE(v.status().ok());

  Expected<int> e = Error(ErrorCode::kNotFound, "no key '{}'", "x");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(e.status().message(), "no key 'x'");
}

TEST(ExpectedTest, OkStatusIsNotAValue) {
  Expected<int> e = Status::Ok();
  EXPECT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("internal error"), std::string::npos);
}

TEST(ExpectedTest, MovesValueOut) {
  Expected<std::string> e = std::string(100, 'x');
  std::string s = std::move(e).value();
  EXPECT_EQ(s.size(), 100u);
}

// Helpers for the macros: each step records that it ran, so a test sees
// where the enclosing function stopped.
Status Step(bool ok, int* steps) {
  ++*steps;
  return ok ? Status::Ok() : Error(ErrorCode::kCorrupt, "step {} failed", *steps);
}

Status TwoSteps(bool first_ok, int* steps) {
  TRIT_RETURN_IF_ERROR(Step(first_ok, steps));
  TRIT_RETURN_IF_ERROR(Step(true, steps));
  return Status::Ok();
}

TEST(StatusMacrosTest, ReturnIfErrorStopsAtTheFirstError) {
  int steps = 0;
  Status s = TwoSteps(false, &steps);
  EXPECT_EQ(s.code(), ErrorCode::kCorrupt);
  EXPECT_EQ(s.message(), "step 1 failed");
  EXPECT_EQ(steps, 1);
  steps = 0;
  EXPECT_TRUE(TwoSteps(true, &steps).ok());
  EXPECT_EQ(steps, 2);
}

Expected<std::string> Twice(Expected<std::string> in) {
  TRIT_ASSIGN_OR_RETURN(std::string text, std::move(in));
  std::string out;
  TRIT_ASSIGN_OR_RETURN(out, Expected<std::string>(text + text));
  return out;
}

TEST(StatusMacrosTest, AssignOrReturnMovesTheValueOrReturnsTheError) {
  Expected<std::string> ok = Twice(std::string("ab"));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, "abab");
  Expected<std::string> bad = Twice(Error(ErrorCode::kNotFound, "no key 'x'"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(bad.status().message(), "no key 'x'");
}

}  // namespace
}  // namespace trit
