// environment.h: what one torture run owns: a temp folder, three disks (tmpfs of 64, 128 and
// 256 MiB as root, plain folders otherwise; a small ext4 image may join them), a plugin folder,
// the broker config (admin socket and a Kafka listener on a free port) and the lds-host child.
// The destructor kills the child, unmounts and removes everything, on every way out.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace lds::torture {

namespace fs = std::filesystem;

class Environment {
 public:
  // The broker's plugin.dir is a folder of the run's own holding a copy of every plugin in
  // `plugin_dir` and in each of `extra_plugin_dirs` (empty paths skipped). Throws
  // std::runtime_error saying what could not be set up.
  Environment(const fs::path& host, const fs::path& plugin_dir,
              const std::vector<fs::path>& extra_plugin_dirs = {});
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

  bool as_root() const { return as_root_; }
  size_t dir_count() const { return log_dirs_.size(); }
  const std::vector<fs::path>& log_dirs() const { return log_dirs_; }
  // The mount point holding log dir i (its parent); fill files go there, outside the log dir.
  const fs::path& disk(size_t i) const { return disks_[i]; }
  const fs::path& socket() const { return socket_; }
  const fs::path& config_file() const { return config_file_; }
  // The run's temp folder, removed with it.
  const fs::path& temp() const { return temp_; }

  // Spawns `lds-host serve` and waits up to 20 s for its socket; "" or why it failed.
  std::string start();
  // SIGKILL and reap; no-op when not running.
  void kill9();
  // SIGTERM, then waits up to `timeout_ms` for the child to exit: its exit code (128 + signal), or
  // nullopt when it was still running (it is then killed with SIGKILL and reaped).
  std::optional<int> terminate(int timeout_ms);
  // True while the child runs; reaps it (and records its exit code) once it has exited.
  bool alive();
  std::optional<int> exit_code() const { return exit_code_; }
  pid_t pid() const { return pid_; }
  // Runs a second `serve` on the same config; its exit code (128 + signal), or nullopt if it was
  // still running after `timeout_ms` (then it is killed).
  std::optional<int> run_second_broker(int timeout_ms);

  // Fills disk i (a tmpfs or the ext4 image) with a file until the disk is full; the bytes
  // written. Does nothing without root, when the disks are plain folders on the real disk.
  uint64_t fill(size_t i);
  // Creates empty files on disk i until its filesystem has no inode left; the files made. Root
  // only, as fill().
  uint64_t exhaust_inodes(size_t i);
  // Gives back what fill() and exhaust_inodes() took.
  void unfill(size_t i);
  bool filled(size_t i) const;
  // `mount -o remount,ro|rw` of disk i; "" or why not.
  std::string remount(size_t i, bool read_only);
  // Adds a log dir on the disk of log dir i, beside it (two log dirs on one filesystem), to the
  // config the next start reads; "" or why not (not root, or a disk holds two already).
  std::string add_log_dir_beside(size_t i);
  // Adds a log dir on an ext4 filesystem of its own, a loop-mounted image of a few MiB in the temp
  // folder made with few inodes, to the config the next start reads; "" or why not (not root,
  // mkfs.ext4 or losetup missing, no free loop device, or added already).
  std::string add_ext4_disk();
  // The index of the ext4 image's log dir; dir_count() when there is none.
  size_t ext4_dir() const { return ext4_dir_ == SIZE_MAX ? dir_count() : ext4_dir_; }
  // Whether log dirs i and j are on one disk.
  bool same_disk(size_t i, size_t j) const { return disks_[i] == disks_[j]; }

  // The last `bytes` of the server log (every start appended).
  std::string log_tail(size_t bytes = 4000) const;
  // The server log's size now, and what it holds from `offset` on: what one start wrote.
  uint64_t log_size() const;
  std::string log_since(uint64_t offset) const;

 private:
  void set_up_disks();
  void set_up_plugins(const std::vector<fs::path>& from);
  // Kills the child, unmounts the disks, removes the temp folder.
  void clean_up();
  pid_t spawn(const fs::path& log);
  void write_config();

  fs::path host_;
  fs::path plugin_dir_;
  fs::path temp_;
  fs::path socket_;
  fs::path config_file_;
  fs::path log_file_;
  std::vector<fs::path> disks_;
  std::vector<fs::path> log_dirs_;
  std::vector<fs::path> mounted_;
  bool as_root_ = false;
  bool shared_disk_ = false;  // add_log_dir_beside() was done
  size_t ext4_dir_ = SIZE_MAX;
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
};

// Runs argv[0] (a path) with argv, standard input from `in` and standard output and error to
// `out`; its exit code (128 + signal), or nullopt when it ran past `timeout_seconds` (it is then
// killed and reaped).
std::optional<int> run_child(const std::vector<std::string>& argv, const fs::path& in,
                             const fs::path& out, int timeout_seconds);

// The payload's expected size of a partition whose request gives none, set in the config so that
// the reservations can be checked.
inline constexpr uint64_t kExpectedBytes = 4ull << 20;

}  // namespace lds::torture
