// interrupted_write_test.cpp: what a kill -9 in the middle of one of the broker's small writes
// leaves, on a real `lds-host serve`. Each of lds.partition, the pending-deletions record,
// broker.toml.dynamic and meta.properties is written to a hidden temp copy beside it and renamed
// over it, so a kill leaves the temp copy, whole or cut short, and the file as it was. The next
// start must go by the files alone: the partition served whole with its own metadata, no deletion
// that was never recorded, the committed dynamic config, every dir online.
#include <gtest/gtest.h>

#include <string>

#include "file_bytes.h"
#include "io/log_layout.h"
#include "server_fixture.h"
#include "tree_bytes.h"

namespace lds::integration {
namespace {

constexpr uint64_t kProduced = 10000;

// The value of the `key=` line of a properties-style text; "" when there is none.
std::string line_value(const std::string& text, const std::string& key) {
  const std::string prefix = key + "=";
  size_t at = text.starts_with(prefix) ? 0 : text.find("\n" + prefix);
  if (at == std::string::npos) return "";
  at += text[at] == '\n' ? prefix.size() + 1 : prefix.size();
  return text.substr(at, text.find('\n', at) - at);
}

class InterruptedWriteTest : public ServerFixture {
 protected:
  // The active strategy as DescribeConfigs gives it.
  std::string strategy() {
    const json described = call_ok({{"api", "DescribeConfigs"}});
    for (const auto& e : described["configs"]) {
      if (e["name"] == "log.directory.select.strategy") return e.value("value", "");
    }
    return "";
  }

  // Produce's answer: the partition's size.
  uint64_t produce(uint64_t bytes) {
    return call_ok({{"api", "Produce"}, {"topic", "t"}, {"partition", 0}, {"bytes", bytes}})
        .value("size", 0u);
  }

  // t-0 with kProduced bytes and a committed dynamic change (so that broker.toml.dynamic holds
  // one), then a kill -9; what each file held then.
  void write_then_kill9() {
    const json created =
        call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", json::array({0})}});
    dir_ = created["partitions"][0]["logDir"].get<std::string>();
    partition_ = dir_ / "t-0";
    ASSERT_EQ(produce(kProduced), kProduced);
    call_ok({{"api", "IncrementalAlterConfigs"},
             {"configs", json::array({{{"name", "log.directory.select.strategy"},
                                       {"op", "SET"},
                                       {"value", "size"}}})}});
    kill9();
    metadata_ = read_file(partition_ / layout::kPartitionMetadata);
    dynamic_ = read_file(config_file_.string() + ".dynamic");
  }

  // The temp copies of a kill in each write: a new lds.partition cut short, a whole record of a
  // deletion of t-0 never renamed into place, a swap to cordon never committed, a meta.properties
  // cut short.
  void leave_a_temp_copy_of_each_write() {
    const std::string replica_id = line_value(metadata_, "replica.id");
    const std::string directory_id =
        line_value(read_file(dir_ / layout::kMetaProperties), "directory.id");
    ASSERT_FALSE(replica_id.empty()) << metadata_;
    ASSERT_FALSE(directory_id.empty());
    const fs::path folder = config_file_.parent_path();
    const std::string config_name = config_file_.filename().string();
    ASSERT_TRUE(test::put_file_bytes(partition_ / kTempMetadata,
                                     metadata_.substr(0, metadata_.size() / 2)));
    ASSERT_TRUE(test::put_file_bytes(
        folder / ("." + config_name + ".pending-deletions.Qw3rTy"),
        "[[pending]]\ndirectory_id = \"" + directory_id + "\"\nlog_dir = \"" + dir_.string() +
            "\"\npartition = 0\nreason = \"read-only\"\nreplica_id = \"" + replica_id +
            "\"\ntopic = \"t\"\n"));
    ASSERT_TRUE(test::put_file_bytes(folder / ("." + config_name + ".dynamic.Zx8Cv7"),
                                     "log.directory.select.strategy = \"cordon\"\n"));
    ASSERT_TRUE(test::put_file_bytes(dir_ / ".meta.properties.Mn4Bv5", "version=1\ncluster.i"));
  }

  // After the restart: every dir online, t-0 whole, and each file as its last committed write
  // left it.
  void expect_every_file_as_committed() {
    const json described = call_ok({{"api", "DescribeLogDirs"}});
    for (const fs::path& d : config_.log_dirs) {
      EXPECT_TRUE(dir_entry(described, d)["error"].is_null()) << described.dump();
    }
    const json here = dir_entry(described, dir_);
    ASSERT_EQ(here["partitions"].size(), 1u) << described.dump();
    EXPECT_EQ(here["partitions"][0]["partition"], "t-0");
    EXPECT_EQ(here["partitions"][0]["size"], kProduced);
    EXPECT_EQ(read_file(partition_ / layout::kPartitionMetadata), metadata_);
    EXPECT_FALSE(fs::exists(config_file_.string() + ".pending-deletions"));
    EXPECT_EQ(strategy(), "size");
    EXPECT_EQ(read_file(config_file_.string() + ".dynamic"), dynamic_);
  }

  static constexpr const char* kTempMetadata = ".lds.partition.k9AbCd";
  fs::path dir_;          // t-0's log dir
  fs::path partition_;    // t-0
  std::string metadata_;  // its lds.partition at the kill
  std::string dynamic_;   // broker.toml.dynamic at the kill
};

TEST_F(InterruptedWriteTest, TempCopiesLeftByAKillChangeNothingAtTheNextStart) {
  ASSERT_NO_FATAL_FAILURE(start(default_config(2)));
  ASSERT_NO_FATAL_FAILURE(write_then_kill9());
  ASSERT_NO_FATAL_FAILURE(leave_a_temp_copy_of_each_write());
  const auto files_before = test::tree_bytes({partition_});
  ASSERT_NO_FATAL_FAILURE(start());
  ASSERT_NO_FATAL_FAILURE(expect_every_file_as_committed());
  // Every file of the partition is as it was (the temp copy, left alone or removed, aside), and
  // it takes appends.
  auto files_after = test::tree_bytes({partition_});
  files_after.erase((partition_ / kTempMetadata).string());
  auto files_kept = files_before;
  files_kept.erase((partition_ / kTempMetadata).string());
  EXPECT_EQ(files_after, files_kept);
  EXPECT_EQ(produce(5000), kProduced + 5000);
}

}  // namespace
}  // namespace lds::integration
