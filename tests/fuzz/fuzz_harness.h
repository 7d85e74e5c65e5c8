// fuzz_harness.h: what the fuzz targets and their corpus test run inputs against: a config file in
// a private temp folder for the config loader, and an in-memory broker for the admin API.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>

#include "admin/admin_api.h"
#include "broker/broker.h"
#include "util/logging.h"

namespace lds::fuzz {

namespace fs = std::filesystem;

// A private folder, on /dev/shm when it is there (the admin API's config changes fsync their file),
// removed with its content when the object goes.
class ScratchDir {
 public:
  ScratchDir() {
    std::error_code ec;
    fs::path base = fs::temp_directory_path(ec);
    if (::access("/dev/shm", W_OK) == 0) base = "/dev/shm";
    std::string pattern = (base / "lds-fuzz-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = fs::canonical(pattern, ec);
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The config loader's input: `data` up to its first NUL byte is broker.toml, the rest (when there
// is a NUL) is broker.toml.dynamic. Returns the config file to load.
inline fs::path write_config_input(const fs::path& dir, std::string_view data) {
  const fs::path file = dir / "broker.toml";
  const fs::path dynamic = dir / "broker.toml.dynamic";
  const size_t nul = data.find('\0');
  std::ofstream(file, std::ios::binary | std::ios::trunc) << data.substr(0, nul);
  std::error_code ec;
  if (nul == std::string_view::npos) {
    fs::remove(dynamic, ec);
  } else {
    std::ofstream(dynamic, std::ios::binary | std::ios::trunc) << data.substr(nul + 1);
  }
  return file;
}

// A broker over three log dirs, <dir>/disk1..3, whose partitions are bookkeeping only (no segment
// files, so Produce of any size costs nothing), strategy "partition" from `plugin_dir`, logging
// off, and topic "t" with partitions 0 and 1 already created.
class AdminHarness {
 public:
  explicit AdminHarness(fs::path plugin_dir) : plugin_dir_(std::move(plugin_dir)) { reset(); }
  ~AdminHarness() {
    api_.reset();
    broker_.reset();
  }
  AdminHarness(const AdminHarness&) = delete;
  AdminHarness& operator=(const AdminHarness&) = delete;

  // A fresh broker: no partitions but t-0 and t-1, no dynamic config.
  void reset() {
    api_.reset();
    broker_.reset();
    std::error_code ec;
    fs::remove(config_file().string() + ".dynamic", ec);
    for (int i = 1; i <= 3; ++i) fs::create_directories(dir(i), ec);
    std::ofstream(config_file(), std::ios::trunc)
        << "broker.id = 0\n"
        << "log.dirs = [\"disk1\", \"disk2\", \"disk3\"]\n"
        << "plugin.dir = \"" << plugin_dir_.string() << "\"\n"
        << "admin.socket = \"unused.sock\"\n"
        << "log.level = \"off\"\n";
    broker_ = std::make_unique<Broker>(config_file(), std::make_shared<StatvfsDiskProbe>(),
                                       /*in_memory_logs=*/true);
    broker_->start();
    api_ = std::make_unique<AdminApi>(*broker_);
    broker_->logs().create_partition("t", 0);
    broker_->logs().create_partition("t", 1);
  }

  // One request line, as the admin server hands it over; the response line.
  std::string handle(std::string_view line) {
    std::string response = api_->handle_line(line);
    set_log_level("off");  // a request may have raised it; keep the fuzzer quiet and fast
    return response;
  }

  size_t partition_count() const { return broker_->logs().partition_count(); }
  fs::path dir(int i) const { return scratch_.path() / ("disk" + std::to_string(i)); }
  fs::path config_file() const { return scratch_.path() / "broker.toml"; }

 private:
  ScratchDir scratch_;
  fs::path plugin_dir_;
  std::unique_ptr<Broker> broker_;
  std::unique_ptr<AdminApi> api_;
};

}  // namespace lds::fuzz
