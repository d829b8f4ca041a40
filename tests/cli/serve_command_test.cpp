// `trit serve` start-up failures, run as a user would (serving itself is
// tested through HTTP clients: tests/python/server_openai_test.py).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/run_trit.h"
#include "test_paths.h"

namespace trit::testing {
namespace {

TEST(ServeCommandTest, BadFlagsAreUsageErrors) {
  EXPECT_EQ(RunTrit({"serve", "--port", "70000"}).exit_code, 2);
  EXPECT_EQ(RunTrit({"serve", "--parallel", "0"}).exit_code, 2);
  RunResult help = RunTrit({"serve", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--api-key"), std::string::npos);
}

TEST(ServeCommandTest, MissingModelIsNamed) {
  RunResult r = RunTrit({"serve", "/nonexistent/model.gguf"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("/nonexistent/model.gguf"), std::string::npos) << r.err;
}

TEST(ServeCommandTest, UnknownEngineIsAUsageErrorListingTheEngines) {
  RunResult r = RunTrit({"serve", BundledModelPath(), "--engine", "nosuch", "--port", "0"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--engine nosuch"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("reference"), std::string::npos) << r.err;  // the engines that can
}

TEST(ServeCommandTest, PortInUseIsNamed) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const std::string port = std::to_string(ntohs(addr.sin_port));
  RunResult r = RunTrit({"serve", BundledModelPath(), "--port", port});
  ::close(fd);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("127.0.0.1:" + port), std::string::npos) << r.err;
}

}  // namespace
}  // namespace trit::testing
