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
};

TEST_F(InterruptedWriteTest, TempCopiesLeftByAKillChangeNothingAtTheNextStart) {
  ServerConfig c = default_config(2);
  ASSERT_NO_FATAL_FAILURE(start(c));
  json created =
      call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", json::array({0})}});
  const fs::path dir = created["partitions"][0]["logDir"].get<std::string>();
  ASSERT_EQ(call_ok({{"api", "Produce"}, {"topic", "t"}, {"partition", 0}, {"bytes", kProduced}})
                .value("size", 0u),
            kProduced);
  // A committed dynamic change, so that broker.toml.dynamic holds one.
  call_ok({{"api", "IncrementalAlterConfigs"},
           {"configs",
            json::array(
                {{{"name", "log.directory.select.strategy"}, {"op", "SET"}, {"value", "size"}}})}});
  kill9();

  const fs::path partition = dir / "t-0";
  const std::string metadata = read_file(partition / layout::kPartitionMetadata);
  const std::string replica_id = line_value(metadata, "replica.id");
  const std::string directory_id =
      line_value(read_file(dir / layout::kMetaProperties), "directory.id");
  ASSERT_FALSE(replica_id.empty()) << metadata;
  ASSERT_FALSE(directory_id.empty());
  const fs::path folder = config_file_.parent_path();
  const std::string config_name = config_file_.filename().string();
  // The temp copies of a kill in each write: a new lds.partition cut short, a whole record of a
  // deletion of t-0 never renamed into place, a swap to cordon never committed, a meta.properties
  // cut short.
  ASSERT_TRUE(test::put_file_bytes(partition / ".lds.partition.k9AbCd",
                                   metadata.substr(0, metadata.size() / 2)));
  ASSERT_TRUE(test::put_file_bytes(
      folder / ("." + config_name + ".pending-deletions.Qw3rTy"),
      "[[pending]]\ndirectory_id = \"" + directory_id + "\"\nlog_dir = \"" + dir.string() +
          "\"\npartition = 0\nreason = \"read-only\"\nreplica_id = \"" + replica_id +
          "\"\ntopic = \"t\"\n"));
  ASSERT_TRUE(test::put_file_bytes(folder / ("." + config_name + ".dynamic.Zx8Cv7"),
                                   "log.directory.select.strategy = \"cordon\"\n"));
  ASSERT_TRUE(test::put_file_bytes(dir / ".meta.properties.Mn4Bv5", "version=1\ncluster.i"));
  const std::string dynamic = read_file(config_file_.string() + ".dynamic");
  const auto files_before = test::tree_bytes({partition});

  ASSERT_NO_FATAL_FAILURE(start());
  json described = call_ok({{"api", "DescribeLogDirs"}});
  for (const fs::path& d : c.log_dirs) {
    EXPECT_TRUE(dir_entry(described, d)["error"].is_null()) << described.dump();
  }
  json here = dir_entry(described, dir);
  ASSERT_EQ(here["partitions"].size(), 1u) << described.dump();
  EXPECT_EQ(here["partitions"][0]["partition"], "t-0");
  EXPECT_EQ(here["partitions"][0]["size"], kProduced);
  EXPECT_EQ(read_file(partition / layout::kPartitionMetadata), metadata);
  EXPECT_FALSE(fs::exists(config_file_.string() + ".pending-deletions"));
  EXPECT_EQ(strategy(), "size");
  EXPECT_EQ(read_file(config_file_.string() + ".dynamic"), dynamic);
  // Every file of the partition is as it was (the temp copy, left alone or removed, aside), and
  // it takes appends.
  auto files_after = test::tree_bytes({partition});
  files_after.erase((partition / ".lds.partition.k9AbCd").string());
  auto files_kept = files_before;
  files_kept.erase((partition / ".lds.partition.k9AbCd").string());
  EXPECT_EQ(files_after, files_kept);
  EXPECT_EQ(call_ok({{"api", "Produce"}, {"topic", "t"}, {"partition", 0}, {"bytes", 5000}})
                .value("size", 0u),
            kProduced + 5000);
}

}  // namespace
}  // namespace lds::integration
