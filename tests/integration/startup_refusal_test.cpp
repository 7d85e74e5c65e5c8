// startup_refusal_test.cpp: a real `lds-host serve` refusing to start on log directories it would
// otherwise serve wrongly: a move copy marked complete but short of its marker's size, a segment
// not named for its first offset, a meta.properties of garbage bytes. Each exits 2 with one
// sentence naming the file and the values, and leaves every byte of the log dirs as it was.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "io/log_layout.h"
#include "server_fixture.h"
#include "storage/move_protocol.h"
#include "tree_bytes.h"

namespace lds::integration {
namespace {

constexpr uint64_t kProduced = 3 << 20;  // 3 MiB, as the field report's partition

class StartupRefusalTest : public ServerFixture {
 protected:
  // Two log dirs, 1 MiB segments; t-0 created (in disk1) with 3 MiB produced; the broker stopped.
  void make_t0() {
    c_ = default_config(2);
    c_.extra_lines = {"log.segment.bytes = 1048576"};
    ASSERT_NO_FATAL_FAILURE(start(c_));
    json created =
        call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", json::array({0})}});
    ASSERT_EQ(created["partitions"][0]["logDir"], c_.log_dirs[0].string()) << created.dump();
    json produced =
        call_ok({{"api", "Produce"}, {"topic", "t"}, {"partition", 0}, {"bytes", kProduced}});
    ASSERT_EQ(produced["size"], kProduced) << produced.dump();
    stop();
  }
  fs::path source() const { return c_.log_dirs[0] / "t-0"; }
  // t-0's segments by base offset.
  std::map<uint64_t, fs::path> segments() const {
    std::map<uint64_t, fs::path> out;
    for (const auto& e : fs::directory_iterator(source())) {
      uint64_t base = 0;
      if (layout::parse_segment_file(e.path().filename().string(), &base)) out[base] = e.path();
    }
    return out;
  }
  // Runs serve on the same config, expecting exit 2, `sentence` on stderr, and no byte changed.
  void expect_refused(const std::string& sentence) {
    const auto before = test::tree_bytes(c_.log_dirs);
    ProcessResult r = run_host({"serve", "--config", config_file_.string()}, 60);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("lds-host: " + sentence), std::string::npos) << r.err;
    EXPECT_EQ(test::tree_bytes(c_.log_dirs), before) << "the refused start changed the log dirs";
    EXPECT_FALSE(fs::exists(socket_));
  }

  ServerConfig c_;
};

// The field report: a -future directory with a marker recording 3 MiB and no segment (or one of
// four) in the other dir. Promoting it served 0 bytes and deleted the source.
TEST_F(StartupRefusalTest, AMoveCopyShortOfItsMarkerRefusesTheStartAndKeepsTheSource) {
  ASSERT_NO_FATAL_FAILURE(make_t0());
  const auto segs = segments();
  ASSERT_GE(segs.size(), 3u);
  const fs::path future =
      c_.log_dirs[1] / layout::future_dir("t", 0, "0123456789abcdef0123456789abcdef");
  const fs::path marker = future / layout::kMoveCompleteMarker;
  fs::create_directories(future);
  std::ofstream(marker) << move_protocol::marker_text(source().string(), kProduced, "t", 0);
  const std::string tail = ", so it is not served and nothing was changed; remove " +
                           future.string() + " to serve its source " + source().string() + " (" +
                           std::to_string(kProduced) + " bytes) again, and start again.";
  expect_refused("The move copy " + future.string() + " of t-0 is marked complete at " +
                 std::to_string(kProduced) + " bytes by " + marker.string() +
                 " but its segments hold 0 bytes" + tail);

  const fs::path first = segs.begin()->second;
  fs::copy_file(first, future / first.filename());
  expect_refused("The move copy " + future.string() + " of t-0 is marked complete at " +
                 std::to_string(kProduced) + " bytes by " + marker.string() +
                 " but its segments hold " + std::to_string(fs::file_size(first)) + " bytes" +
                 tail);

  // Done as the sentence says, the source is served whole.
  fs::remove_all(future);
  ASSERT_NO_FATAL_FAILURE(start());
  json described = call_ok({{"api", "DescribeLogDirs"}});
  json d0 = dir_entry(described, c_.log_dirs[0]);
  ASSERT_EQ(d0["partitions"].size(), 1u) << described.dump();
  EXPECT_EQ(d0["partitions"][0]["size"], kProduced);
}

// A renamed segment: the only one, 0 as 7, would hide records 0 to 6; the last one renamed past
// its first offset would leave a consumer waiting at that offset for ever.
TEST_F(StartupRefusalTest, ASegmentNotNamedForItsFirstOffsetRefusesTheStart) {
  ASSERT_NO_FATAL_FAILURE(make_t0());
  const auto segs = segments();
  ASSERT_GE(segs.size(), 3u);
  auto sentence = [](const fs::path& file, uint64_t named, uint64_t first) {
    return "Log segment " + file.string() + " is named for offset " + std::to_string(named) +
           " but its first record batch starts at offset " + std::to_string(first) +
           ", so its records would be served at other offsets and nothing was changed; rename "
           "it to " +
           layout::segment_file(first) + ", the name of a segment starting there, and start again.";
  };
  const auto [last, last_path] = *segs.rbegin();
  const fs::path renamed_last = source() / layout::segment_file(last + 3);
  fs::rename(last_path, renamed_last);
  expect_refused(sentence(renamed_last, last + 3, last));
  fs::rename(renamed_last, last_path);

  const fs::path renamed_first = source() / layout::segment_file(7);
  fs::rename(segs.begin()->second, renamed_first);
  expect_refused(sentence(renamed_first, 7, 0));
}

TEST_F(StartupRefusalTest, AMetaPropertiesOfGarbageBytesRefusesTheStartNamingIt) {
  c_ = default_config(2);
  fs::create_directories(c_.log_dirs[1]);
  const char raw[] = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xcb\x48\xcd\xc9\xc9\x07\x00";
  const std::string garbage(raw, sizeof raw - 1);
  const fs::path file = c_.log_dirs[1] / "meta.properties";
  std::ofstream(file, std::ios::binary) << garbage;
  write_config(c_);
  ProcessResult r = run_host({"serve", "--config", config_file_.string()}, 20);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("lds-host: " + file.string() +
                       ": No version, node.id or broker.id line is found, so this is not a "
                       "meta.properties Kafka writes; restore the directory's own file, or "
                       "remove it to have a new one written, and start again."),
            std::string::npos)
      << r.err;
  EXPECT_EQ(read_file(file), garbage);
  EXPECT_FALSE(fs::exists(c_.log_dirs[0] / "meta.properties")) << "written before the refusal";
  EXPECT_FALSE(fs::exists(socket_));
}

}  // namespace
}  // namespace lds::integration
