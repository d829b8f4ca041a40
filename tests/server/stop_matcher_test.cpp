#include "server/stop_matcher.h"

#include <gtest/gtest.h>

namespace trit::server {
namespace {

TEST(StopMatcherTest, NoStopsSendsEverything) {
  StopMatcher m({});
  EXPECT_FALSE(m.Append("hello "));
  EXPECT_EQ(m.Take(false), "hello ");
  EXPECT_FALSE(m.Append("world"));
  EXPECT_EQ(m.Take(false), "world");
  EXPECT_EQ(m.Take(true), "");
}

TEST(StopMatcherTest, HoldsBackAPossibleStartOfAStopString) {
  StopMatcher m({"END"});
  EXPECT_FALSE(m.Append("abc E"));
  EXPECT_EQ(m.Take(false), "abc ");  // "E" may begin "END"
  EXPECT_FALSE(m.Append("x"));
  EXPECT_EQ(m.Take(false), "Ex");
}

TEST(StopMatcherTest, StopSplitAcrossPiecesCutsBeforeIt) {
  StopMatcher m({"\n\n", "END"});
  EXPECT_FALSE(m.Append("one E"));
  EXPECT_EQ(m.Take(false), "one ");
  EXPECT_TRUE(m.Append("NDtwo"));
  EXPECT_EQ(m.Take(true), "");
  EXPECT_EQ(m.text(), "one ");
  EXPECT_TRUE(m.Append("more"));  // ignored after the stop
  EXPECT_EQ(m.Take(true), "");
}

TEST(StopMatcherTest, EarliestStopWins) {
  StopMatcher m({"c", "ab"});
  EXPECT_TRUE(m.Append("xxabc"));
  EXPECT_EQ(m.Take(true), "xx");
}

TEST(StopMatcherTest, FinalTakeReleasesHeldText) {
  StopMatcher m({"STOP"});
  EXPECT_FALSE(m.Append("aST"));
  EXPECT_EQ(m.Take(false), "a");
  EXPECT_EQ(m.Take(true), "ST");
}

}  // namespace
}  // namespace trit::server
