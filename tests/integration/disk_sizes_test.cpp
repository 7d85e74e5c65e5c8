// disk_sizes_test.cpp: placement on three real filesystems of 16, 32 and 64 MiB (tmpfs mounts, so
// these run only as root): the size strategy follows free space, the partition strategy ignores it.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "byte_units.h"
#include "server_fixture.h"

namespace lds::integration {
namespace {

constexpr uint64_t kDiskMiB[] = {16, 32, 64};

class DiskSizeTest : public ServerFixture {
 protected:
  // Mounts the three disks; returns why not when they cannot be mounted.
  std::string mount_disks(std::vector<fs::path>* dirs) {
    for (uint64_t mib : kDiskMiB) {
      const fs::path dir = temp_ / ("fs" + std::to_string(mib));
      if (std::string why = mount_tmpfs(dir, mib); !why.empty()) return why;
      dirs->push_back(dir);
    }
    return "";
  }

  // Creates partitions one at a time, producing `produce_bytes` into each; counts them per dir.
  std::map<std::string, int> place(const std::string& topic, int32_t count, uint64_t expected_bytes,
                                   uint64_t produce_bytes) {
    std::map<std::string, int> per_dir;
    for (int32_t p = 0; p < count; ++p) {
      json r = call_ok({{"api", "CreatePartitions"},
                        {"topic", topic},
                        {"partitions", {p}},
                        {"expectedBytes", expected_bytes}});
      const json& placed = r["partitions"][0];
      EXPECT_EQ(placed["error"], "NONE") << placed.dump();
      if (!placed["logDir"].is_string()) continue;
      per_dir[placed["logDir"].get<std::string>()]++;
      if (produce_bytes > 0) {
        call_ok({{"api", "Produce"}, {"topic", topic}, {"partition", p}, {"bytes", produce_bytes}});
      }
    }
    return per_dir;
  }

  void expect_real_sizes(const std::vector<fs::path>& dirs) {
    json describe = call_ok({{"api", "DescribeLogDirs"}});
    for (size_t i = 0; i < dirs.size(); ++i) {
      json entry = dir_entry(describe, dirs[i]);
      ASSERT_TRUE(entry.is_object()) << dirs[i];
      EXPECT_EQ(entry["totalBytes"], kDiskMiB[i] * kMiB) << entry.dump();
    }
  }
};

TEST_F(DiskSizeTest, SizeStrategyPutsMostPartitionsOnTheLargestDisk) {
  std::vector<fs::path> dirs;
  if (std::string why = mount_disks(&dirs); !why.empty()) GTEST_SKIP() << why;
  ServerConfig config = default_config(0, "size");
  config.log_dirs = dirs;
  ASSERT_NO_FATAL_FAILURE(start(config));
  ASSERT_NO_FATAL_FAILURE(expect_real_sizes(dirs));

  // 14 partitions of 2 MiB: 28 of the 112 MiB, so every disk could take any of them.
  auto per_dir = place("sized", 14, 2 * kMiB, 2 * kMiB);
  const int small = per_dir[dirs[0].string()];
  const int medium = per_dir[dirs[1].string()];
  const int large = per_dir[dirs[2].string()];
  EXPECT_EQ(small + medium + large, 14);
  EXPECT_GT(large, medium) << "16/32/64 MiB got " << small << "/" << medium << "/" << large;
  EXPECT_GT(medium, small) << "16/32/64 MiB got " << small << "/" << medium << "/" << large;
  // Filling evenly by fraction gives 2/4/8.
  EXPECT_GE(large, 7);
  EXPECT_LE(small, 3);

  json describe = call_ok({{"api", "DescribeLogDirs"}});
  for (size_t i = 0; i < dirs.size(); ++i) {
    json entry = dir_entry(describe, dirs[i]);
    const uint64_t hosted = static_cast<uint64_t>(per_dir[dirs[i].string()]) * 2 * kMiB;
    EXPECT_LE(entry["usableBytes"].get<uint64_t>(), kDiskMiB[i] * kMiB - hosted)
        << "usableBytes must reflect the bytes produced into " << dirs[i];
  }
}

TEST_F(DiskSizeTest, PartitionStrategyCountsEquallyRegardlessOfSize) {
  std::vector<fs::path> dirs;
  if (std::string why = mount_disks(&dirs); !why.empty()) GTEST_SKIP() << why;
  ServerConfig config = default_config(0, "partition");
  config.log_dirs = dirs;
  ASSERT_NO_FATAL_FAILURE(start(config));
  ASSERT_NO_FATAL_FAILURE(expect_real_sizes(dirs));

  auto per_dir = place("counted", 12, 2 * kMiB, 1 * kMiB);
  for (const auto& dir : dirs) {
    EXPECT_EQ(per_dir[dir.string()], 4) << dir << " of 16/32/64 MiB";
  }
}

}  // namespace
}  // namespace lds::integration
