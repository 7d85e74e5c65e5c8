// server_fixture.h: runs the real `lds-host serve` on a private temp folder and drives it over its
// admin socket, for the integration suites.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace lds::integration {

namespace fs = std::filesystem;
using nlohmann::json;

// The lds-host executable under test and the build's plugin folder (env LDS_PLUGIN_DIR).
fs::path host_executable();
fs::path build_plugin_dir();
// Whether env LDS_INTEGRATION_VALGRIND=1 asks for every server to run under Valgrind.
bool valgrind_requested();
// Whether an executable named `name` is on PATH.
bool on_path(const std::string& name);

// A finished child process: its exit code (128 + signal if it was killed), stdout and stderr.
struct ProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Whether process `pid` (a child not yet waited for) has exited: gone or a zombie.
bool has_exited(pid_t pid);

// The whole content of a file, or "" when it cannot be read.
std::string read_file(const fs::path& file);

// What the broker TOML of a test contains. Paths are written absolute.
struct ServerConfig {
  std::vector<fs::path> log_dirs;
  std::string strategy = "partition";
  fs::path plugin_dir;                   // empty: the build's plugin folder
  fs::path socket;                       // empty: <temp>/admin.sock
  std::vector<std::string> extra_lines;  // raw TOML lines appended at the end
};

class ServerFixture : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // A fresh folder inside the test's temp folder.
  fs::path make_dir(const std::string& name);
  // Default config: `dir_count` log dirs <temp>/disk<i>, the given strategy.
  ServerConfig default_config(size_t dir_count = 3, const std::string& strategy = "partition");
  // Writes `config` as TOML to `file` (default <temp>/broker.toml) and remembers it for start().
  fs::path write_config(const ServerConfig& config, const fs::path& file = {});

  // Spawns `lds-host serve --config <config>` and waits until its socket accepts a connection.
  // Fails the test (fatally) with the server log if it exits first or the wait times out.
  void start();
  // write_config(config) and start().
  void start(const ServerConfig& config);
  // SIGTERM, wait; expects exit status 0 and that the socket file is gone.
  void stop();
  // SIGKILL and wait; the socket file stays behind, stale.
  void kill9();
  // stop() and start() on the same config.
  void restart();
  bool running() const { return pid_ > 0; }
  // Waits up to `timeout_ms` for the server to exit by itself; its exit code (128 + signal if
  // killed), after which it counts as stopped, or nullopt if it is still running.
  std::optional<int> wait_for_server_exit(int timeout_ms);
  pid_t server_pid() const { return pid_; }

  // Sends one request on a fresh connection and returns the parsed response.
  json call(const json& request);
  // The same, expecting "error":"NONE"; adds a failure naming the request otherwise.
  json call_ok(const json& request);

  // Runs `lds-host args...` to completion (not as a server), stdout and stderr captured apart.
  ProcessResult run_host(const std::vector<std::string>& args, int timeout_seconds = 30);
  // Runs `argv` (argv[0] looked up on PATH) to completion, stdout and stderr captured apart.
  ProcessResult run_program(const std::vector<std::string>& argv, int timeout_seconds = 30);

  // Everything the server(s) of this test wrote to stdout and stderr so far.
  std::string server_log() const;

  // Mounts a tmpfs of `mib` MiB on `dir` (created if needed); unmounted in TearDown. Returns an
  // empty string on success, else why it could not (not root, mount refused). `more_options` is
  // appended to the mount options ("nr_inodes=64").
  std::string mount_tmpfs(const fs::path& dir, uint64_t mib, const std::string& more_options = "");
  // Mounts an ext4 filesystem of `mib` MiB (`inodes` inodes when > 0) on `dir` (created if
  // needed), an image in the test's temp folder (tests/support/ext4_image.h). TearDown unmounts
  // it. Returns "" on success, else why it could not (not root, mkfs.ext4 or losetup missing, no
  // loop device).
  std::string mount_ext4_image(const fs::path& dir, uint64_t mib, uint32_t inodes = 0);

  // Forces Valgrind on for this test's servers, whatever the environment says.
  void force_valgrind() { valgrind_ = true; }
  bool under_valgrind() const { return valgrind_; }

  // DescribeLogDirs helpers: the logDirs array of broker 0, and one dir's entry by path.
  json log_dirs_of(const json& describe) const;
  json dir_entry(const json& describe, const fs::path& dir) const;

  fs::path temp_;
  fs::path config_file_;
  fs::path socket_;
  ServerConfig config_;

 private:
  pid_t spawn(const std::vector<std::string>& argv, const fs::path& stdout_file,
              const fs::path& stderr_file);
  // Waits up to `timeout_ms` for `pid`; returns the exit code (128 + signal) or nullopt.
  std::optional<int> wait_for_exit(pid_t pid, int timeout_ms);
  void unmount_all();

  pid_t pid_ = -1;
  bool valgrind_ = false;
  fs::path server_log_file_;
  std::vector<fs::path> mounts_;
  int run_counter_ = 0;
};

}  // namespace lds::integration
