// admin_limits_test.cpp: the admin server's limits against a real lds-host serve: the connection
// limit, the idle timeout, and running out of file descriptors without spinning or failing disks.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include "reliability_support.h"
#include "server_fixture.h"

namespace lds::integration {
namespace {

using Clock = std::chrono::steady_clock;

class AdminLimitsTest : public ServerFixture {
 protected:
  void start_with(const std::vector<std::string>& lines) {
    ServerConfig c = default_config(2);
    c.extra_lines = lines;
    start(c);
  }
};

// CPU seconds (user + system) the process has used, from /proc/<pid>/stat.
double cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; fields >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) {
      stime = std::stoull(field);
      break;
    }
  }
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

size_t open_descriptors(pid_t pid) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    (void)e;
    ++n;
  }
  return n;
}

TEST_F(AdminLimitsTest, ConnectionsPastTheLimitGetOneLineAndAreClosed) {
  start_with({"admin.max.connections = 4"});
  std::vector<std::unique_ptr<RawClient>> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(std::make_unique<RawClient>(socket_));
    ASSERT_EQ(held.back()->call(R"({"api":"DescribeConfigs"})").value("error", "?"), "NONE");
  }
  RawClient extra(socket_, 5);
  const std::optional<std::string> line = extra.read_line();
  ASSERT_TRUE(line.has_value()) << "the fifth connection got no line";
  const json refusal = json::parse(*line);
  EXPECT_EQ(refusal["error"], "INVALID_REQUEST");
  EXPECT_EQ(refusal["message"],
            "The admin server already has admin.max.connections (4) connections open; the "
            "connection is closed.");
  EXPECT_FALSE(extra.read_line().has_value()) << "the refused connection stayed open";
  // The four held connections still work, and a closed one frees its place.
  EXPECT_EQ(held[3]->call(R"({"api":"DescribeLogDirs"})").value("error", "?"), "NONE");
  held.pop_back();
  RawClient replacement(socket_, 5);
  EXPECT_EQ(replacement.call(R"({"api":"DescribeConfigs"})").value("error", "?"), "NONE");
  EXPECT_NE(
      server_log().find("Refused an admin connection: 4 are open, admin.max.connections is 4."),
      std::string::npos);
}

TEST_F(AdminLimitsTest, IdleConnectionsAreClosedAfterTheIdleTime) {
  start_with({"admin.connection.idle.ms = 300"});
  RawClient idle(socket_, 10);
  RawClient busy(socket_, 10);
  const auto begin = Clock::now();
  while (Clock::now() - begin < std::chrono::milliseconds(1500)) {
    ASSERT_EQ(busy.call(R"({"api":"DescribeConfigs"})").value("error", "?"), "NONE");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // The idle one was closed (end of file, no line); the one in use was not.
  EXPECT_FALSE(idle.read_line().has_value());
  EXPECT_EQ(busy.call(R"({"api":"DescribeLogDirs"})").value("error", "?"), "NONE");
  EXPECT_NE(server_log().find("Closing an admin connection idle for more than 300 ms"),
            std::string::npos);
}

TEST_F(AdminLimitsTest, RunningOutOfDescriptorsRefusesConnectionsWithoutSpinningOrFailingDisks) {
  if (!on_path("prlimit")) GTEST_SKIP() << "prlimit (util-linux) is not installed";
  start_with({"admin.max.connections = 1000"});
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0, 1}}});
  const pid_t pid = server_pid();
  // Leave room for a few connections only.
  const size_t limit = open_descriptors(pid) + 4;
  const std::string nofile = std::to_string(limit);
  ProcessResult lowered{};
  {
    const pid_t child = ::fork();
    if (child == 0) {
      const std::string target = std::to_string(pid);
      const std::string value = "--nofile=" + nofile + ":" + nofile;
      ::execlp("prlimit", "prlimit", "--pid", target.c_str(), value.c_str(),
               static_cast<char*>(nullptr));
      ::_exit(127);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "prlimit failed";
  }
  std::vector<std::unique_ptr<RawClient>> clients;
  bool refused = false;
  for (int i = 0; i < 20 && !refused; ++i) {
    auto c = std::make_unique<RawClient>(socket_, 5);
    json r = c->call(R"({"api":"DescribeConfigs"})");
    if (r.value("error", "?") == "CLIENT_FAILURE") {
      // Refused before our request was read: the server's one line is waiting to be read.
      const std::optional<std::string> line = c->read_line();
      ASSERT_TRUE(line.has_value()) << "the connection was closed without a line";
      r = json::parse(*line);
    }
    if (r.value("error", "?") == "INVALID_REQUEST") {
      EXPECT_EQ(r["message"],
                "The broker has run out of file descriptors; the connection is closed.");
      refused = true;
    } else {
      ASSERT_EQ(r.value("error", "?"), "NONE") << r.dump();
      clients.push_back(std::move(c));
    }
  }
  ASSERT_TRUE(refused) << "no connection was refused with " << limit << " descriptors";
  ASSERT_FALSE(clients.empty());
  // A Produce takes one of the descriptors kept back for segment files (fd_reserve.h): it works.
  const json appended =
      clients[0]->call(R"({"api":"Produce","topic":"t","partition":0,"bytes":1000})");
  EXPECT_EQ(appended.value("error", "?"), "NONE") << appended.dump();
  // A creation needs descriptors of its own for its files: it fails on its own, and no disk goes
  // offline.
  const json created =
      clients[0]->call(R"({"api":"CreatePartitions","topic":"u","partitions":[0]})");
  ASSERT_EQ(created.value("partitions", json::array()).size(), 1u) << created.dump();
  const json starved = created["partitions"][0];
  EXPECT_EQ(starved.value("error", "?"), "KAFKA_STORAGE_ERROR") << starved.dump();
  EXPECT_NE(starved.value("message", "")
                .find("the broker is short of file descriptors (Too many "
                      "open files)"),
            std::string::npos)
      << starved.dump();
  EXPECT_NE(starved.value("message", "").find("the log directory stays online"), std::string::npos);
  const json during = clients[0]->call(R"({"api":"DescribeLogDirs"})");
  ASSERT_EQ(during.value("error", "?"), "NONE") << during.dump();
  for (const json& d : log_dirs_of(during)) EXPECT_TRUE(d["error"].is_null()) << d.dump();
  // More clients knock while the descriptors are gone: the server must not spin on them.
  std::vector<std::unique_ptr<RawClient>> knocking;
  for (int i = 0; i < 10; ++i) knocking.push_back(std::make_unique<RawClient>(socket_, 5));
  const double cpu_before = cpu_seconds(pid);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const double cpu_used = cpu_seconds(pid) - cpu_before;
  EXPECT_LT(cpu_used, 0.3) << "the server used " << cpu_used << " s of CPU in 1 s while starved";
  knocking.clear();
  clients.clear();
  // Descriptors back: requests work, and no log directory was taken offline.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const json describe = call_ok({{"api", "DescribeLogDirs"}});
  for (const json& d : log_dirs_of(describe)) EXPECT_TRUE(d["error"].is_null()) << d.dump();
  call_ok({{"api", "Produce"}, {"topic", "t"}, {"partition", 0}, {"bytes", 1000}});
}

}  // namespace
}  // namespace lds::integration
