// balance_fixture.h: a real `lds-host serve` on tmpfs disks of different sizes, with the helpers
// the balancer's integration tests share: placing data on a dir, watching the balancer settle, and
// checking every partition is on disk once with its bytes intact.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "byte_units.h"
#include "filler_log.h"
#include "io/log_layout.h"
#include "server_fixture.h"

namespace lds::integration {

class BalanceTest : public ServerFixture {
 protected:
  // Mounts one tmpfs per size as the log dirs of `c`, or with `logs_below` in a folder "logs" on
  // each, so that a file filling the disk can sit outside the log dir. Returns why it could not,
  // or "".
  std::string mount_disks(ServerConfig& c, const std::vector<uint64_t>& mib,
                          bool logs_below = false) {
    c.log_dirs.clear();
    for (size_t i = 0; i < mib.size(); ++i) {
      const fs::path dir = temp_ / ("disk" + std::to_string(i + 1));
      if (std::string why = mount_tmpfs(dir, mib[i]); !why.empty()) return why;
      c.log_dirs.push_back(logs_below ? dir / "logs" : dir);
      if (logs_below) fs::create_directories(c.log_dirs.back());
    }
    return "";
  }

  // Fills the disk holding log dir `dir` (mounted with logs_below) with a file beside the log
  // dir, until the filesystem refuses another byte.
  void fill_disk(const fs::path& dir) {
    const fs::path file = dir.parent_path() / "fill";
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    ASSERT_GE(fd, 0) << "cannot create " << file;
    const std::vector<char> chunk(1 << 20, 'f');
    // A short write takes the last free bytes; the next one meets ENOSPC.
    while (::write(fd, chunk.data(), chunk.size()) > 0) {
    }
    ::close(fd);
  }

  void unfill_disk(const fs::path& dir) { fs::remove(dir.parent_path() / "fill"); }

  fs::path disk(int i) const { return config_.log_dirs[static_cast<size_t>(i - 1)]; }

  void set_configs(const std::map<std::string, std::string>& values) {
    json configs = json::array();
    for (const auto& [k, v] : values) configs.push_back({{"name", k}, {"op", "SET"}, {"value", v}});
    call_ok({{"api", "IncrementalAlterConfigs"}, {"configs", configs}});
  }

  // Creates `topic` partitions 0..count-1 in `dir` (a remembered KIP-113 preference) with
  // `bytes` each.
  void place_on(const fs::path& dir, const std::string& topic, int count, uint64_t bytes) {
    for (int p = 0; p < count; ++p) {
      json r = call_ok(
          {{"api", "AlterReplicaLogDirs"},
           {"dirs",
            json::array({{{"path", dir.string()},
                          {"partitions", json::array({{{"topic", topic}, {"partition", p}}})}}})}});
      EXPECT_EQ(r["results"][0]["error"], "REPLICA_NOT_AVAILABLE");
      r = call_ok({{"api", "CreatePartitions"}, {"topic", topic}, {"partitions", {p}}});
      EXPECT_EQ(r["partitions"][0]["logDir"], dir.string());
      call_ok({{"api", "Produce"}, {"topic", topic}, {"partition", p}, {"bytes", bytes}});
    }
  }

  // Partition name -> the dirs it is current in, and the number of future replicas.
  std::map<std::string, std::vector<std::string>> placement(int* futures = nullptr) {
    std::map<std::string, std::vector<std::string>> out;
    if (futures) *futures = 0;
    const json dirs = log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}));
    for (const auto& d : dirs) {
      for (const auto& p : d["partitions"]) {
        if (p["isFuture"].get<bool>()) {
          if (futures) ++*futures;
          continue;
        }
        out[p["partition"].get<std::string>()].push_back(d["logDir"].get<std::string>());
      }
    }
    return out;
  }

  size_t partitions_in(const fs::path& dir) {
    const json d = dir_entry(call_ok({{"api", "DescribeLogDirs"}}), dir);
    return d["partitions"].size();
  }

  bool wait_for(const std::function<bool()>& done, int timeout_ms = 60000) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (std::chrono::steady_clock::now() < deadline) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return done();
  }

  // Waits until the balancer has nothing in flight or planned and is not draining.
  bool wait_until_settled() {
    return wait_for([&] {
      const json s = call_ok({{"api", "DescribeBalance"}});
      return s["inFlight"].empty() && s["planned"] == 0 && s["draining"].is_null();
    });
  }

  // Every partition of `topic` is on disk in exactly one log dir, with exactly `size` bytes of the
  // Produce's filler records, and no -future or -delete directory is left.
  void expect_intact(const std::string& topic, int count, uint64_t size) {
    for (int p = 0; p < count; ++p) {
      const std::string name = layout::partition_dir(topic, p);
      std::vector<fs::path> copies;
      for (const fs::path& d : config_.log_dirs) {
        if (fs::exists(d / name)) copies.push_back(d / name);
      }
      ASSERT_EQ(copies.size(), 1u) << name << " is in " << copies.size() << " log dirs";
      EXPECT_EQ(test::filler_log_problem(copies[0], topic, p, size), "") << name;
    }
    for (const fs::path& d : config_.log_dirs) {
      for (const auto& e : fs::directory_iterator(d)) {
        const std::string n = e.path().filename().string();
        EXPECT_FALSE(n.ends_with("-future") || n.ends_with("-delete")) << e.path();
      }
    }
  }
};

// tmpfs needs root: skip, saying why, otherwise.
#define REQUIRE_TMPFS(c, mib)                                          \
  do {                                                                 \
    if (std::string why = mount_disks(c, mib); !why.empty()) {         \
      GTEST_SKIP() << "needs tmpfs disks of different sizes: " << why; \
    }                                                                  \
  } while (0)

}  // namespace lds::integration
