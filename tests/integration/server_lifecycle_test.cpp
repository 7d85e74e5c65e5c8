// server_lifecycle_test.cpp: how lds-host serve starts, refuses to start, shares (or not) its
// socket, and how the client subcommands report outcomes through their exit codes.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "server_fixture.h"

namespace lds::integration {
namespace {

class LifecycleTest : public ServerFixture {};

size_t line_count(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

bool is_socket_file(const fs::path& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

// Leaves a socket file nobody listens on, as a server that died without cleaning up does.
void make_stale_socket(const fs::path& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0)
      << std::strerror(errno);
  ::close(fd);
  ASSERT_TRUE(is_socket_file(path));
}

TEST_F(LifecycleTest, InvalidStrategyNameExitsWithCode2AndOneLine) {
  const fs::path file = write_config(default_config(2, "Not-A-Name"));
  ProcessResult r = run_host({"serve", "--config", file.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(line_count(r.err), 1u) << "stderr:\n" << r.err;
  EXPECT_EQ(r.err.rfind("lds-host: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("log.directory.select.strategy"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(file.string()), std::string::npos) << "should name the file: " << r.err;
  EXPECT_FALSE(fs::exists(fs::symlink_status(socket_))) << "a refused start left a socket";
}

TEST_F(LifecycleTest, UnknownStrategyExitsWithCode2AndOneLine) {
  const fs::path file = write_config(default_config(2, "nosuch"));
  ProcessResult r = run_host({"serve", "--config", file.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(line_count(r.err), 1u) << "stderr:\n" << r.err;
  EXPECT_EQ(r.err.rfind("lds-host: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find((build_plugin_dir() / "liblds_nosuch.so").string()), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(fs::symlink_status(socket_)));
}

TEST_F(LifecycleTest, MissingPluginFileExitsWithCode2AndOneLine) {
  ServerConfig config = default_config(2, "partition");
  config.plugin_dir = make_dir("empty-plugins");
  const fs::path file = write_config(config);
  ProcessResult r = run_host({"serve", "--config", file.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(line_count(r.err), 1u) << "stderr:\n" << r.err;
  EXPECT_EQ(r.err.rfind("lds-host: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find((config.plugin_dir / "liblds_partition.so").string()), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(fs::symlink_status(socket_)));
}

TEST_F(LifecycleTest, SecondServerOnLiveSocketFailsAndFirstKeepsServing) {
  ASSERT_NO_FATAL_FAILURE(start(default_config(2)));
  ServerConfig second = default_config(0);
  second.log_dirs = {temp_ / "second1", temp_ / "second2"};
  second.socket = socket_;
  const fs::path file = write_config(second, temp_ / "second.toml");

  ProcessResult r = run_host({"serve", "--config", file.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("Another server is already listening"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(socket_.string()), std::string::npos) << r.err;

  EXPECT_TRUE(is_socket_file(socket_)) << "the second server removed the first one's socket";
  call_ok({{"api", "DescribeLogDirs"}});
  json describe = call_ok({{"api", "DescribeLogDirs"}});
  EXPECT_EQ(log_dirs_of(describe).size(), 2u);
  EXPECT_TRUE(dir_entry(describe, temp_ / "disk1").is_object()) << "answered by the wrong server";
}

TEST_F(LifecycleTest, StaleSocketFileIsReplaced) {
  ASSERT_NO_FATAL_FAILURE(make_stale_socket(socket_));
  ASSERT_NO_FATAL_FAILURE(start(default_config(2)));
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0}}});

  // A server killed with SIGKILL leaves its socket behind; the next start replaces it.
  kill9();
  EXPECT_TRUE(is_socket_file(socket_)) << "expected a stale socket after SIGKILL";
  ASSERT_NO_FATAL_FAILURE(start());
  json describe = call_ok({{"api", "DescribeLogDirs"}});
  size_t partitions = 0;
  for (const auto& d : log_dirs_of(describe)) partitions += d["partitions"].size();
  EXPECT_EQ(partitions, 1u);
}

TEST_F(LifecycleTest, ClientExitCodesFollowTheOutcome) {
  ASSERT_NO_FATAL_FAILURE(start(default_config(2)));
  const std::string socket = socket_.string();

  ProcessResult describe = run_host({"describe", "--socket", socket});
  EXPECT_EQ(describe.exit_code, 0) << describe.err;
  EXPECT_NE(describe.out.find((temp_ / "disk1").string()), std::string::npos) << describe.out;

  ProcessResult json_out = run_host({"describe", "--socket", socket, "--json"});
  EXPECT_EQ(json_out.exit_code, 0) << json_out.err;
  // stdout is the document alone, so `| jq` reads it.
  json parsed = json::parse(json_out.out, nullptr, false);
  ASSERT_FALSE(parsed.is_discarded()) << json_out.out;
  EXPECT_EQ(parsed["version"], 1);

  ProcessResult unknown = run_host(
      {"produce", "--socket", socket, "--topic", "absent", "--partition", "0", "--bytes", "10"});
  EXPECT_EQ(unknown.exit_code, 1) << unknown.err;
  EXPECT_NE(unknown.err.find("UNKNOWN_TOPIC_OR_PARTITION"), std::string::npos) << unknown.err;

  const std::string missing = (temp_ / "missing.sock").string();
  ProcessResult no_server = run_host({"describe", "--socket", missing});
  EXPECT_EQ(no_server.exit_code, 2) << no_server.err;
  EXPECT_NE(no_server.err.find(missing), std::string::npos) << no_server.err;
}

// Kafka's kafka-topics.sh fails when the topic is refused; so must `lds-host create`.
TEST_F(LifecycleTest, CreateWithInvalidTopicNameExitsWith1AndNamesTheError) {
  ASSERT_NO_FATAL_FAILURE(start(default_config(2)));
  ProcessResult r = run_host(
      {"create", "--socket", socket_.string(), "--topic", "bad topic!", "--partition-ids", "0"});
  EXPECT_EQ(r.exit_code, 1) << "stdout:\n" << r.out << "stderr:\n" << r.err;
  EXPECT_NE((r.out + r.err).find("INVALID_TOPIC_EXCEPTION"), std::string::npos) << r.out << r.err;
  json describe = call_ok({{"api", "DescribeLogDirs"}});
  for (const auto& d : log_dirs_of(describe)) EXPECT_TRUE(d["partitions"].empty()) << d.dump();
}

// describe shows fullness at a glance: a FILL column with the fullest dir marked, the active
// strategy's options in its header, and each dir's partitions largest first.
TEST_F(LifecycleTest, DescribeShowsFillMarksTheFullestAndListsPartitionsLargestFirst) {
  ServerConfig c = default_config(2, "size");
  c.extra_lines.push_back("log.directory.select.size.balance = \"fill\"");
  ASSERT_NO_FATAL_FAILURE(start(c));
  for (int p = 0; p < 4; ++p) {
    const std::string dir = c.log_dirs[static_cast<size_t>(p % 2)].string();
    call_ok({{"api", "AlterReplicaLogDirs"},
             {"dirs",
              json::array({{{"path", dir},
                            {"partitions", json::array({{{"topic", "t"}, {"partition", p}}})}}})}});
    call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {p}}});
    call_ok({{"api", "Produce"}, {"topic", "t"}, {"partition", p}, {"bytes", 1000 * (p + 1)}});
  }
  ProcessResult r = run_host({"describe", "--socket", socket_.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Strategy: size "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; balance=fill)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" FILL "), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '*'), 2) << r.out;  // one mark, one legend
  EXPECT_NE(r.out.find("(* the fullest log dir)"), std::string::npos) << r.out;
  // disk1 holds t-0 (1000 B) and t-2 (3000 B); disk2 t-1 (2000 B) and t-3 (4000 B).
  EXPECT_LT(r.out.find("t-2 ("), r.out.find("t-0 (")) << r.out;
  EXPECT_LT(r.out.find("t-3 ("), r.out.find("t-1 (")) << r.out;
}

// The client subcommands read only admin.socket from --config: the file a broker runs on, with a
// typo added during an incident, still reaches the broker, and so does one with a syntax error
// after its admin.socket line.
TEST_F(LifecycleTest, ClientCommandsReachTheBrokerThroughAConfigWithATypo) {
  ASSERT_NO_FATAL_FAILURE(start(default_config(2)));
  const fs::path typo = temp_ / "typo.toml";
  const fs::path broken = temp_ / "broken.toml";
  std::ofstream(typo) << "admin.socket = \"" << socket_.string() << "\"\nlog.dirz = [\"/x\"]\n";
  std::ofstream(broken) << "admin.socket = \"" << socket_.string()
                        << "\"\nlog.dirs = [unterminated\n";
  for (const fs::path& file : {typo, broken}) {
    SCOPED_TRACE(file.filename().string());
    ProcessResult r = run_host({"describe", "--config", file.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("LOG DIR"), std::string::npos) << r.out;
    r = run_host({"configs", "--config", file.string(), "--describe"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("Dynamic configs for broker 0 are:", 0), 0u) << r.out;
  }
}

// On disks of their own (tmpfs, as root) the mark goes to the fullest one, whatever its order:
// disk2 (16 MiB) with 4 MiB is fuller than disk1 (64 MiB) with 8 MiB.
TEST_F(LifecycleTest, DescribeMarksTheFullestDiskOfUnequalOnes) {
  ServerConfig c = default_config(2);
  for (size_t i = 0; i < 2; ++i) {
    if (std::string why = mount_tmpfs(c.log_dirs[i], i == 0 ? 64 : 16); !why.empty()) {
      GTEST_SKIP() << why;
    }
  }
  ASSERT_NO_FATAL_FAILURE(start(c));
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0, 1}}});  // one per dir
  const json described = call_ok({{"api", "DescribeLogDirs"}});
  for (const auto& d : log_dirs_of(described)) {
    ASSERT_EQ(d["partitions"].size(), 1u) << described.dump();
    const std::string tp = d["partitions"][0]["partition"];
    const bool small = d["logDir"] == c.log_dirs[1].string();
    call_ok({{"api", "Produce"},
             {"topic", "t"},
             {"partition", tp == "t-0" ? 0 : 1},
             {"bytes", small ? 4u << 20 : 8u << 20}});
  }
  ProcessResult r = run_host({"describe", "--socket", socket_.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  int marked = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(c.log_dirs[1].string() + " ")) {
      EXPECT_NE(line.find("%*"), std::string::npos) << r.out;
      ++marked;
    } else if (line.starts_with(c.log_dirs[0].string() + " ")) {
      EXPECT_EQ(line.find('*'), std::string::npos) << r.out;
    }
  }
  EXPECT_EQ(marked, 1) << r.out;
}

}  // namespace
}  // namespace lds::integration
