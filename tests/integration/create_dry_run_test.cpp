// create_dry_run_test.cpp: `lds-host create --dry-run` on a real server with a cordoned, a full
// (a tmpfs below keep.free.bytes, so root only) and an offline log dir: each reason is shown,
// nothing is created or reserved, and the real create then places where the ranking said. And
// `lds-host explain`, the same table for a partition already created, as its creation saw it.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "byte_units.h"
#include "server_fixture.h"

namespace lds::integration {
namespace {

class CreateDryRunTest : public ServerFixture {
 protected:
  fs::path disk(int i) const { return config_.log_dirs[static_cast<size_t>(i - 1)]; }

  // disk1 cordoned, disk2 an 8 MiB tmpfs below keep.free.bytes (16 MiB), disk3 a file (offline),
  // disk4 and disk5 on the test's own filesystem.
  std::string start_five_disks() {
    ServerConfig c = default_config(5, "size");
    if (std::string why = mount_tmpfs(c.log_dirs[1], 8); !why.empty()) return why;
    std::ofstream(c.log_dirs[2]) << "not a directory";
    c.extra_lines = {
        "cordoned.log.dirs = [\"" + c.log_dirs[0].string() + "\"]",
        "log.directory.select.size.keep.free.bytes = \"" + std::to_string(16 * kMiB) + "\""};
    start(c);
    return "";
  }

  // lds-host explain for t-<partition>, as a table or --json.
  ProcessResult explain(int32_t partition, bool json_output) {
    std::vector<std::string> args = {
        "explain",  "--topic",       "t", "--partition", std::to_string(partition),
        "--socket", socket_.string()};
    if (json_output) args.push_back("--json");
    return run_host(args);
  }

  // The row of `dir` in explain's table `out`, below the headline that names the dir placed in.
  static std::string row_of(const std::string& out, const fs::path& dir) {
    const size_t at = out.find(" " + dir.string() + " ", out.find('\n'));
    if (at == std::string::npos) return std::string();
    const size_t start = out.rfind('\n', at) + 1;
    return out.substr(start, out.find('\n', at) - start);
  }

  // explain --json for t-1, placed in `second` with t-0 (64 MiB reserved) in `first` and disk1
  // cordoned: the ranking it was decided on, with the figures read then.
  void expect_explained_as_json(const fs::path& second, const fs::path& first) {
    const ProcessResult js = explain(1, true);
    ASSERT_EQ(js.exit_code, 0) << js.err;
    const json r = json::parse(js.out);  // stdout is the JSON alone
    EXPECT_EQ(r["kept"], true);
    EXPECT_EQ(r["logDir"], second.string());
    const json& p = r["placement"];
    EXPECT_EQ(p["logDir"], second.string());
    EXPECT_EQ(p["strategy"], "size");
    EXPECT_EQ(p["expectedBytes"], 64 * kMiB);
    ASSERT_EQ(p["dirs"].size(), 3u) << p.dump();
    EXPECT_EQ(p["dirs"][0]["logDir"], second.string());
    EXPECT_EQ(p["dirs"][0]["rank"], 1);
    EXPECT_EQ(p["dirs"][1]["logDir"], first.string());
    EXPECT_EQ(p["dirs"][1]["rank"], 2);
    EXPECT_EQ(p["dirs"][1]["reservedBytes"], 64 * kMiB);
    EXPECT_EQ(p["dirs"][1]["partitionCount"], 1);
    EXPECT_EQ(p["dirs"][2]["leftOut"], "cordoned");
  }

  ProcessResult dry_run(const std::string& topic, int32_t partition, bool json_output) {
    std::vector<std::string> args = {"create",           "--dry-run",
                                     "--topic",          topic,
                                     "--partition-ids",  std::to_string(partition),
                                     "--expected-bytes", "64MiB",
                                     "--socket",         socket_.string()};
    if (json_output) args.push_back("--json");
    return run_host(args);
  }

  // Creates t-<partition>, 64 MiB expected; the log dir it went to ("" when none).
  std::string create_t(int32_t partition) {
    const json r = call_ok({{"api", "CreatePartitions"},
                            {"topic", "t"},
                            {"partitions", {partition}},
                            {"expectedBytes", 64 * kMiB}});
    return r["partitions"][0].value("logDir", "");
  }

  // On start_five_disks() with t-0 on disk4: the dry run's table for t-1 ranks disk5 first, then
  // disk4 with t-0's reservation, and gives each other dir's reason.
  void expect_dry_run_table_shows_each_reason() {
    const ProcessResult table = dry_run("t", 1, false);
    EXPECT_EQ(table.exit_code, 0) << table.err;
    EXPECT_NE(table.out.find("t-1 (expected 64.0 MiB) by size, generation 1: would go to " +
                             disk(5).string()),
              std::string::npos)
        << table.out;
    EXPECT_EQ(row_of(table.out, disk(5)).rfind("  1 ", 0), 0u) << table.out;
    EXPECT_EQ(row_of(table.out, disk(4)).rfind("  2 ", 0), 0u) << table.out;
    EXPECT_NE(row_of(table.out, disk(4)).find("64.0 MiB"), std::string::npos)
        << "reserved: " << table.out;
    EXPECT_TRUE(row_of(table.out, disk(1)).ends_with("  cordoned")) << table.out;
    EXPECT_NE(row_of(table.out, disk(2))
                  .find("below log.directory.select.size.keep.free.bytes (16.0 MiB): "),
              std::string::npos)
        << table.out;
    EXPECT_TRUE(row_of(table.out, disk(3)).ends_with("  offline")) << table.out;
    EXPECT_NE(table.out.find("(Dry run: nothing was created.)"), std::string::npos) << table.out;
  }

  // The same dry run as --json.
  void expect_dry_run_json_shows_each_reason() {
    const ProcessResult js = dry_run("t", 1, true);
    ASSERT_EQ(js.exit_code, 0) << js.err;
    const json r = json::parse(js.out);
    const json& p = r["partitions"][0];
    EXPECT_EQ(p["logDir"], disk(5).string());
    ASSERT_EQ(p["dirs"].size(), 5u) << p.dump();
    EXPECT_EQ(p["dirs"][0]["logDir"], disk(5).string());
    EXPECT_EQ(p["dirs"][0]["rank"], 1);
    EXPECT_EQ(p["dirs"][1]["logDir"], disk(4).string());
    EXPECT_EQ(p["dirs"][1]["reservedBytes"], 64 * kMiB);
    EXPECT_EQ(p["dirs"][1]["partitionCount"], 1);
    EXPECT_EQ(p["dirs"][2]["leftOut"], "cordoned");
    EXPECT_EQ(p["dirs"][4]["leftOut"], "offline");
    EXPECT_TRUE(p["dirs"][4]["totalBytes"].is_null());
  }

  // A DescribeLogDirs with what a dry run must not change: partitions and reservations.
  json state() {
    json dirs = log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}));
    for (auto& d : dirs) {
      d.erase("usableBytes");  // the test's filesystem is shared; its free space moves
      d.erase("totalBytes");
      d.erase("projectedFillPercent");  // and with it, the projected fill
    }
    return dirs;
  }
};

TEST_F(CreateDryRunTest, ShowsEachReasonCreatesNothingAndRanksWhereCreateThenPlaces) {
  if (std::string why = start_five_disks(); !why.empty()) GTEST_SKIP() << why;
  // One partition on disk4 first, so its 64 MiB reservation puts disk5 ahead of it.
  ASSERT_EQ(create_t(0), disk(4).string());
  const json before = state();
  expect_dry_run_table_shows_each_reason();
  ASSERT_NO_FATAL_FAILURE(expect_dry_run_json_shows_each_reason());
  EXPECT_EQ(state(), before) << "a dry run changed the log dirs";
  EXPECT_TRUE(fs::exists(disk(4) / "t-0"));
  for (int i : {1, 2, 4, 5}) EXPECT_FALSE(fs::exists(disk(i) / "t-1")) << disk(i);

  // The real create goes where the dry run ranked first.
  EXPECT_EQ(create_t(1), disk(5).string());

  // A dry run of a partition that exists says where it is.
  ProcessResult again = dry_run("t", 1, false);
  EXPECT_NE(again.out.find("t-1 already exists in " + disk(5).string()), std::string::npos)
      << again.out;
}

TEST_F(CreateDryRunTest, ExplainShowsTheRankingACreationWasDecidedOn) {
  ServerConfig c = default_config(3, "size");
  c.extra_lines = {"cordoned.log.dirs = [\"" + c.log_dirs[0].string() + "\"]"};
  ASSERT_NO_FATAL_FAILURE(start(c));
  // disk2 and disk3 share a filesystem: t-0's 64 MiB reservation puts the other one first for t-1.
  const std::vector<fs::path> placed = {create_t(0), create_t(1)};
  ASSERT_TRUE(placed[0] == disk(2) || placed[0] == disk(3)) << placed[0];
  const fs::path first = placed[0];
  const fs::path second = placed[0] == disk(2) ? disk(3) : disk(2);
  ASSERT_EQ(placed[1], second);

  const ProcessResult table = explain(1, false);
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.rfind("t-1 (expected 64.0 MiB) was placed in " + second.string() +
                                " by size, generation 1, at 20",
                            0),
            0u)
      << table.out;
  EXPECT_EQ(row_of(table.out, second).rfind("  1 ", 0), 0u) << table.out;
  EXPECT_EQ(row_of(table.out, first).rfind("  2 ", 0), 0u) << table.out;
  EXPECT_NE(row_of(table.out, first).find("64.0 MiB"), std::string::npos)
      << "reserved: " << table.out;
  EXPECT_TRUE(row_of(table.out, disk(1)).ends_with("  cordoned")) << table.out;
  EXPECT_NE(table.out.find("(The figures are those the strategy read when t-1 was placed.)"),
            std::string::npos)
      << table.out;
  ASSERT_NO_FATAL_FAILURE(expect_explained_as_json(second, first));
  const ProcessResult unknown = explain(9, false);
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err,
            "lds-host: UNKNOWN_TOPIC_OR_PARTITION: This broker does not host partition t-9.\n");

  // Explanations live in memory: after a restart the broker says where, no longer why.
  ASSERT_NO_FATAL_FAILURE(restart());
  const ProcessResult after = explain(0, false);
  EXPECT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(
      after.out,
      "t-0 is in " + first.string() +
          ".\nThe explanation of t-0's placement is no longer kept: the broker keeps those of "
          "its 4096 most recent placements since it started, and t-0 was placed before them "
          "or before the last restart.\n");
}

}  // namespace
}  // namespace lds::integration
