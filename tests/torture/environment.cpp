// environment.cpp: temp folder, tmpfs and ext4 disks, config file and the lds-host child of a
// torture run.
#include "environment.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "broker_toml.h"
#include "ext4_image.h"
#include "file_bytes.h"
#include "private_mounts.h"

namespace lds::torture {

namespace {

constexpr std::array<uint64_t, 3> kDiskMiB = {64, 128, 256};
constexpr const char* kFillFile = "torture-fill";
constexpr const char* kInodeFiller = "torture-inodes";
// The ext4 image: small, so that filling it writes little to the real disk, and with few inodes.
constexpr uint64_t kExt4MiB = 24;
constexpr uint32_t kExt4Inodes = 128;

bool socket_accepts(const fs::path& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const bool ok = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

int status_code(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

Environment::Environment(const fs::path& host, const fs::path& plugin_dir,
                         const std::vector<fs::path>& extra_plugin_dirs)
    : host_(host), as_root_(::geteuid() == 0) {
  std::string pattern = (fs::temp_directory_path() / "lds-torture-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a temp folder " + pattern + ": " +
                             std::strerror(errno));
  }
  temp_ = pattern;
  socket_ = temp_ / "admin.sock";
  config_file_ = temp_ / "broker.toml";
  log_file_ = temp_ / "server.log";
  try {
    std::vector<fs::path> from{plugin_dir};
    from.insert(from.end(), extra_plugin_dirs.begin(), extra_plugin_dirs.end());
    set_up_plugins(from);
    set_up_disks();
  } catch (...) {
    clean_up();
    throw;
  }
}

void Environment::set_up_plugins(const std::vector<fs::path>& dirs) {
  plugin_dir_ = temp_ / "plugins";
  fs::create_directories(plugin_dir_);
  for (const fs::path& from : dirs) {
    if (from.empty()) continue;
    std::error_code ec;
    size_t copied = 0;
    for (const auto& e : fs::directory_iterator(from, ec)) {
      if (!e.is_regular_file() || e.path().extension() != ".so") continue;
      fs::copy_file(e.path(), plugin_dir_ / e.path().filename());
      ++copied;
    }
    if (ec || copied == 0) {
      throw std::runtime_error("no plugins to copy in " + from.string() +
                               (ec ? ": " + ec.message() : ""));
    }
  }
}

void Environment::set_up_disks() {
  for (size_t i = 0; i < kDiskMiB.size(); ++i) {
    const fs::path disk = temp_ / ("disk" + std::to_string(i + 1));
    fs::create_directories(disk);
    if (as_root_) {
      if (std::string why = test::use_private_mount_namespace(); !why.empty()) {
        throw std::runtime_error("cannot mount the disks: " + why);
      }
      const std::string options = "size=" + std::to_string(kDiskMiB[i]) + "m";
      if (::mount("tmpfs", disk.c_str(), "tmpfs", 0, options.c_str()) != 0) {
        throw std::runtime_error("cannot mount a tmpfs on " + disk.string() + ": " +
                                 std::strerror(errno));
      }
      mounted_.push_back(disk);
    }
    disks_.push_back(disk);
    log_dirs_.push_back(disk / "logs");
  }
  write_config();
}

Environment::~Environment() { clean_up(); }

void Environment::clean_up() {
  kill9();
  for (auto it = mounted_.rbegin(); it != mounted_.rend(); ++it) {
    if (::umount2(it->c_str(), 0) != 0) ::umount2(it->c_str(), MNT_DETACH);
  }
  std::error_code ec;
  fs::remove_all(temp_, ec);
}

void Environment::write_config() {
  test::BrokerToml()
      .lines("# Broker config of a torture run.")
      .set_raw("broker.id", "0")
      .log_dirs(log_dirs_)
      .plugin_dir(plugin_dir_)
      .set("admin.socket", socket_.string())
      .set("log.directory.select.strategy", "partition")
      .set_raw("log.partition.expected.bytes", std::to_string(kExpectedBytes))
      .set_raw("log.dir.balance.interval.ms", "200")
      .set_raw("log.dir.balance.cooldown.ms", "1000")
      // A hostile plugin that hangs in create or in its dry run holds a swap this long.
      .set_raw("plugin.validation.timeout.ms", "1000")
      // The Kafka clients' way in, on a free port; DescribeLogDirs names it after each start.
      .set("listeners", "PLAINTEXT://127.0.0.1:0")
      .write(config_file_);
}

pid_t Environment::spawn(const fs::path& log) {
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // The broker dies with the driver, whatever ends the driver.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(126);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    const std::string host = host_.string();
    const std::string config = config_file_.string();
    char* argv[] = {const_cast<char*>(host.c_str()), const_cast<char*>("serve"),
                    const_cast<char*>("--config"), const_cast<char*>(config.c_str()), nullptr};
    ::execv(argv[0], argv);
    ::_exit(127);
  }
  return pid;
}

std::string Environment::start() {
  if (pid_ > 0) return "start while the broker runs";
  exit_code_.reset();
  { std::ofstream(log_file_, std::ios::app) << "===== torture: starting lds-host serve\n"; }
  pid_ = spawn(log_file_);
  if (pid_ < 0) return std::string("fork: ") + std::strerror(errno);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (!alive()) return "lds-host serve exited with code " + std::to_string(*exit_code_);
    if (socket_accepts(socket_)) return "";
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return "lds-host serve did not accept connections within 20 s";
}

void Environment::kill9() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  exit_code_ = status_code(status);
  pid_ = -1;
}

std::optional<int> Environment::terminate(int timeout_ms) {
  if (pid_ <= 0) return exit_code_;
  ::kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    if (!alive()) return exit_code_;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill9();
  return std::nullopt;
}

bool Environment::alive() {
  if (pid_ <= 0) return false;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == 0) return true;
  exit_code_ = r == pid_ ? status_code(status) : -1;
  pid_ = -1;
  return false;
}

std::optional<int> Environment::run_second_broker(int timeout_ms) {
  const pid_t pid = spawn(temp_ / "second.log");
  if (pid < 0) return std::nullopt;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return status_code(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return std::nullopt;
}

uint64_t Environment::fill(size_t i) {
  // Only a tmpfs of a fixed size may be filled: a plain folder is on the real disk.
  if (!as_root_) return 0;
  const fs::path file = disks_[i] / kFillFile;
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return 0;
  std::vector<char> chunk(1 << 20, 'F');
  uint64_t written = 0;
  // Bounded by the tmpfs size: writing stops at ENOSPC.
  for (;;) {
    const ssize_t n = ::write(fd, chunk.data(), chunk.size());
    if (n <= 0) break;
    written += static_cast<uint64_t>(n);
  }
  ::close(fd);
  return written;
}

uint64_t Environment::exhaust_inodes(size_t i) {
  if (!as_root_) return 0;
  const fs::path dir = disks_[i] / kInodeFiller;
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return 0;
  // Bounded by the filesystem's inodes (a tmpfs has one per page of its size at most).
  uint64_t made = 0;
  for (uint64_t n = 0;; ++n) {
    const fs::path file = dir / std::to_string(n);
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      break;
    }
    ::close(fd);
    ++made;
  }
  return made;
}

void Environment::unfill(size_t i) {
  std::error_code ec;
  fs::remove(disks_[i] / kFillFile, ec);
  fs::remove_all(disks_[i] / kInodeFiller, ec);
}

bool Environment::filled(size_t i) const {
  std::error_code ec;
  return fs::exists(disks_[i] / kFillFile, ec) || fs::exists(disks_[i] / kInodeFiller, ec);
}

std::string Environment::add_log_dir_beside(size_t i) {
  if (!as_root_) return "not root";
  if (shared_disk_) return "a disk holds two log dirs already";
  const fs::path dir = disks_[i] / ("logs" + std::to_string(log_dirs_.size() + 1));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return "cannot create " + dir.string() + ": " + ec.message();
  disks_.push_back(disks_[i]);
  log_dirs_.push_back(dir);
  shared_disk_ = true;
  write_config();
  return "";
}

std::string Environment::add_ext4_disk() {
  if (!as_root_) return "not root";
  if (ext4_dir_ != SIZE_MAX) return "the ext4 disk is there already";
  const fs::path disk = temp_ / "disk-ext4";
  if (std::string why = test::mount_ext4_image(temp_ / "ext4.img", disk, kExt4MiB, kExt4Inodes);
      !why.empty()) {
    return why;
  }
  mounted_.push_back(disk);
  std::error_code ec;
  fs::create_directories(disk / "logs", ec);
  if (ec) return "cannot create " + (disk / "logs").string() + ": " + ec.message();
  ext4_dir_ = log_dirs_.size();
  disks_.push_back(disk);
  log_dirs_.push_back(disk / "logs");
  write_config();
  return "";
}

std::string Environment::remount(size_t i, bool read_only) {
  if (!as_root_) return "not root";
  const std::optional<int> code =
      run_child({"/bin/mount", "-o", read_only ? "remount,ro" : "remount,rw", disks_[i].string()},
                "/dev/null", "/dev/null", 30);
  if (!code) return "mount -o remount did not end within 30 s";
  return *code == 0 ? "" : "mount -o remount exited with " + std::to_string(*code);
}

std::optional<int> run_child(const std::vector<std::string>& argv, const fs::path& in,
                             const fs::path& out, int timeout_seconds) {
  const pid_t pid = ::fork();
  if (pid < 0) return 127;
  if (pid == 0) {
    const int input = ::open(in.c_str(), O_RDONLY);
    const int output = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (input < 0 || output < 0) ::_exit(126);
    ::dup2(input, 0);
    ::dup2(output, 1);
    ::dup2(output, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  for (;;) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return status_code(status);
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::string Environment::log_tail(size_t bytes) const {
  const std::string all = test::file_bytes(log_file_);
  return all.size() <= bytes ? all : all.substr(all.size() - bytes);
}

uint64_t Environment::log_size() const {
  std::error_code ec;
  const uint64_t size = fs::file_size(log_file_, ec);
  return ec ? 0 : size;
}

std::string Environment::log_since(uint64_t offset) const {
  const std::string all = test::file_bytes(log_file_);
  return offset < all.size() ? all.substr(offset) : "";
}

}  // namespace lds::torture
