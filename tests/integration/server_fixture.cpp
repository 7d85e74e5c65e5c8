// server_fixture.cpp: spawns and stops `lds-host serve`, writes its config, mounts test
// filesystems, and leaves nothing behind.
#include "server_fixture.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "admin/admin_client.h"
#include "broker_toml.h"
#include "ext4_image.h"
#include "file_bytes.h"
#include "private_mounts.h"

extern char** environ;

namespace lds::integration {
namespace {

constexpr int kStartTimeoutMs = 10'000;
constexpr int kValgrindStartTimeoutMs = 90'000;
constexpr int kStopTimeoutMs = 10'000;
constexpr int kValgrindStopTimeoutMs = 120'000;

// Valgrind's verdict becomes the exit status: 1 on any error or definite leak.
const std::vector<std::string> kValgrindPrefix = {"valgrind",
                                                  "--error-exitcode=1",
                                                  "--leak-check=full",
                                                  "--errors-for-leak-kinds=definite",
                                                  "--keep-debuginfo=yes",
                                                  "--quiet"};

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

bool socket_accepts(const fs::path& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string s = path.string();
  if (s.size() >= sizeof addr.sun_path) return false;
  std::memcpy(addr.sun_path, s.c_str(), s.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  bool ok = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

bool path_exists(const fs::path& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// Mount points at or below `root`, from /proc/self/mountinfo (field 5 is the mount point).
std::vector<std::string> mounts_under(const fs::path& root) {
  std::vector<std::string> out;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  const std::string prefix = root.string();
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string field;
    for (int i = 0; i < 5 && fields >> field; ++i) {
    }
    if (field == prefix || field.rfind(prefix + "/", 0) == 0) out.push_back(field);
  }
  return out;
}

// The folder for temp dirs: TMPDIR when short enough for a Unix socket path inside it, else /tmp.
fs::path temp_base() {
  const char* tmpdir = std::getenv("TMPDIR");
  if (tmpdir != nullptr && *tmpdir != '\0' && std::strlen(tmpdir) < 60 &&
      fs::is_directory(tmpdir)) {
    return tmpdir;
  }
  return "/tmp";
}

}  // namespace

fs::path host_executable() { return LDS_HOST_EXE; }

fs::path build_plugin_dir() {
  const char* env = std::getenv("LDS_PLUGIN_DIR");
  return env != nullptr && *env != '\0' ? fs::path(env) : fs::path(LDS_BUILD_PLUGIN_DIR);
}

bool valgrind_requested() {
  const char* env = std::getenv("LDS_INTEGRATION_VALGRIND");
  return env != nullptr && std::string(env) == "1";
}

bool on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::istringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && ::access((fs::path(dir) / name).c_str(), X_OK) == 0) return true;
  }
  return false;
}

bool has_exited(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  const size_t paren = text.rfind(')');
  return paren == std::string::npos || paren + 2 >= text.size() || text[paren + 2] == 'Z';
}

std::string read_file(const fs::path& file) { return test::file_bytes(file); }

void ServerFixture::SetUp() {
  valgrind_ = valgrind_requested();
  std::string pattern = (temp_base() / "lds-integ-XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << "mkdtemp " << pattern << ": " << strerror(errno);
  temp_ = fs::canonical(pattern);
  server_log_file_ = temp_ / "server.log";
  socket_ = temp_ / "admin.sock";
  config_file_ = temp_ / "broker.toml";
}

void ServerFixture::TearDown() {
  if (running()) stop();
  unmount_all();
  if (HasFailure()) {
    std::cout << "----- lds-host server log (" << server_log_file_.string() << ") -----\n"
              << server_log() << "----- end of server log -----\n";
  }
  if (!temp_.empty()) {
    if (mounts_under(temp_).empty()) {
      std::error_code ec;
      fs::remove_all(temp_, ec);
      EXPECT_FALSE(ec) << "cannot remove " << temp_ << ": " << ec.message();
    } else {
      ADD_FAILURE() << "not removing " << temp_ << ": something is still mounted below it";
    }
  }
}

fs::path ServerFixture::make_dir(const std::string& name) {
  fs::path dir = temp_ / name;
  fs::create_directories(dir);
  return dir;
}

ServerConfig ServerFixture::default_config(size_t dir_count, const std::string& strategy) {
  ServerConfig c;
  for (size_t i = 1; i <= dir_count; ++i)
    c.log_dirs.push_back(temp_ / ("disk" + std::to_string(i)));
  c.strategy = strategy;
  return c;
}

fs::path ServerFixture::write_config(const ServerConfig& config, const fs::path& file) {
  const fs::path target = file.empty() ? config_file_ : file;
  test::BrokerToml toml;
  toml.lines("# Broker config written by the integration test fixture.")
      .set_raw("broker.id", "0")
      .log_dirs(config.log_dirs)
      .plugin_dir(config.plugin_dir.empty() ? build_plugin_dir() : config.plugin_dir)
      .set("admin.socket", (config.socket.empty() ? temp_ / "admin.sock" : config.socket).string())
      .set("log.directory.select.strategy", config.strategy);
  for (const auto& line : config.extra_lines) toml.lines(line);
  return toml.write(target);
}

void ServerFixture::start(const ServerConfig& config) {
  config_ = config;
  write_config(config);
  socket_ = config.socket.empty() ? temp_ / "admin.sock" : config.socket;
  start();
}

void ServerFixture::start() {
  ASSERT_FALSE(running()) << "start() while a server is running";
  std::vector<std::string> argv;
  if (valgrind_) argv = kValgrindPrefix;
  argv.insert(argv.end(), {host_executable().string(), "serve", "--config", config_file_.string()});
  {
    std::ofstream marker(server_log_file_, std::ios::app);
    marker << "===== starting:";
    for (const auto& a : argv) marker << " " << a;
    marker << "\n";
  }
  pid_ = spawn(argv, server_log_file_, server_log_file_);
  ASSERT_GT(pid_, 0) << "cannot spawn " << argv.front();
  const int timeout_ms = valgrind_ ? kValgrindStartTimeoutMs : kStartTimeoutMs;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    if (std::optional<int> code = wait_for_exit(pid_, 0)) {
      pid_ = -1;
      FAIL() << "lds-host serve exited with code " << *code
             << " before its socket accepted a connection:\n"
             << server_log();
    }
    if (socket_accepts(socket_)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid_, SIGKILL);
  wait_for_exit(pid_, -1);
  pid_ = -1;
  FAIL() << "lds-host serve did not accept connections on " << socket_ << " within " << timeout_ms
         << " ms:\n"
         << server_log();
}

void ServerFixture::stop() {
  if (!running()) return;
  const pid_t pid = pid_;
  pid_ = -1;
  ASSERT_EQ(::kill(pid, SIGTERM), 0) << strerror(errno);
  const int timeout_ms = valgrind_ ? kValgrindStopTimeoutMs : kStopTimeoutMs;
  std::optional<int> code = wait_for_exit(pid, timeout_ms);
  if (!code) {
    ::kill(pid, SIGKILL);
    wait_for_exit(pid, -1);
    FAIL() << "lds-host serve did not exit within " << timeout_ms << " ms of SIGTERM";
  }
  EXPECT_EQ(*code, 0) << "lds-host serve exit status after SIGTERM"
                      << (valgrind_ ? " (1 means Valgrind found errors or definite leaks)" : "");
  EXPECT_FALSE(path_exists(socket_))
      << "the socket file " << socket_ << " is still there after a clean shutdown";
}

void ServerFixture::kill9() {
  if (!running()) return;
  ::kill(pid_, SIGKILL);
  wait_for_exit(pid_, -1);
  pid_ = -1;
}

std::optional<int> ServerFixture::wait_for_server_exit(int timeout_ms) {
  if (!running()) return std::nullopt;
  std::optional<int> code = wait_for_exit(pid_, timeout_ms);
  if (code) pid_ = -1;
  return code;
}

void ServerFixture::restart() {
  ASSERT_NO_FATAL_FAILURE(stop());
  ASSERT_NO_FATAL_FAILURE(start());
}

json ServerFixture::call(const json& request) {
  try {
    lds::AdminClient client(socket_);
    return json::parse(client.call(request.dump()));
  } catch (const std::exception& e) {
    ADD_FAILURE() << "request " << request.dump() << " failed: " << e.what();
    return json{{"error", "CLIENT_FAILURE"}, {"message", e.what()}};
  }
}

json ServerFixture::call_ok(const json& request) {
  json response = call(request);
  EXPECT_EQ(response.value("error", "?"), "NONE")
      << "request " << request.dump() << " got " << response.dump();
  return response;
}

ProcessResult ServerFixture::run_host(const std::vector<std::string>& args, int timeout_seconds) {
  std::vector<std::string> argv{host_executable().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv, timeout_seconds);
}

ProcessResult ServerFixture::run_program(const std::vector<std::string>& argv,
                                         int timeout_seconds) {
  ProcessResult result;
  const int n = ++run_counter_;
  const fs::path out = temp_ / ("run" + std::to_string(n) + ".out");
  const fs::path err = temp_ / ("run" + std::to_string(n) + ".err");
  pid_t pid = spawn(argv, out, err);
  if (pid <= 0) {
    ADD_FAILURE() << "cannot spawn " << argv.front();
    return result;
  }
  std::optional<int> code = wait_for_exit(pid, timeout_seconds * 1000);
  if (!code) {
    ::kill(pid, SIGKILL);
    wait_for_exit(pid, -1);
    ADD_FAILURE() << argv.front() << " did not finish within " << timeout_seconds << " s";
  }
  result.exit_code = code.value_or(-1);
  result.out = read_file(out);
  result.err = read_file(err);
  return result;
}

std::string ServerFixture::server_log() const { return read_file(server_log_file_); }

std::string ServerFixture::mount_tmpfs(const fs::path& dir, uint64_t mib,
                                       const std::string& more_options) {
  if (::geteuid() != 0) return "not running as root, so a tmpfs cannot be mounted";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return "cannot create " + dir.string() + ": " + ec.message();
  std::string options = "size=" + std::to_string(mib) + "m,mode=0755";
  if (!more_options.empty()) options += "," + more_options;
  if (std::string why = test::use_private_mount_namespace(); !why.empty()) return why;
  if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, options.c_str()) != 0) {
    return "mount -t tmpfs -o " + options + " on " + dir.string() + " failed: " + strerror(errno);
  }
  mounts_.push_back(dir);
  return "";
}

std::string ServerFixture::mount_ext4_image(const fs::path& dir, uint64_t mib, uint32_t inodes) {
  // The image lives in the temp folder, removed with it.
  const fs::path image = temp_ / (dir.filename().string() + ".ext4");
  if (std::string why = test::mount_ext4_image(image, dir, mib, inodes); !why.empty()) return why;
  mounts_.push_back(dir);
  return "";
}

void ServerFixture::unmount_all() {
  for (auto it = mounts_.rbegin(); it != mounts_.rend(); ++it) {
    if (::umount2(it->c_str(), 0) != 0 && ::umount2(it->c_str(), MNT_DETACH) != 0) {
      ADD_FAILURE() << "cannot unmount " << *it << ": " << strerror(errno);
    }
  }
  mounts_.clear();
  if (!temp_.empty()) {
    for (const auto& left : mounts_under(temp_)) ADD_FAILURE() << "still mounted: " << left;
  }
}

json ServerFixture::log_dirs_of(const json& describe) const {
  if (!describe.contains("brokers") || describe["brokers"].empty()) return json::array();
  return describe["brokers"][0].value("logDirs", json::array());
}

json ServerFixture::dir_entry(const json& describe, const fs::path& dir) const {
  for (const auto& d : log_dirs_of(describe)) {
    if (d.value("logDir", "") == dir.string()) return d;
  }
  return json();
}

pid_t ServerFixture::spawn(const std::vector<std::string>& argv, const fs::path& stdout_file,
                           const fs::path& stderr_file) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, stdout_file.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                   0644);
  if (stderr_file == stdout_file) {
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  } else {
    posix_spawn_file_actions_addopen(&actions, 2, stderr_file.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
  }
  // The child starts with no blocked signals and default dispositions, whatever the runner set.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGTERM, SIGINT, SIGHUP}) sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = ::posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    ADD_FAILURE() << "posix_spawn " << argv[0] << ": " << strerror(rc);
    return -1;
  }
  return pid;
}

std::optional<int> ServerFixture::wait_for_exit(pid_t pid, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    int status = 0;
    pid_t r = ::waitpid(pid, &status, timeout_ms < 0 ? 0 : WNOHANG);
    if (r == pid) return exit_code_of(status);
    if (r < 0 && errno != EINTR) return -1;
    if (timeout_ms >= 0 && std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    if (timeout_ms >= 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace lds::integration
