// config_change_test.cpp: dynamic configs on a running lds-host: cordons, strategy hot swaps,
// refused changes, and what survives a restart.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "filler_log.h"
#include "io/log_layout.h"
#include "server_fixture.h"

namespace lds::integration {
namespace {

class ConfigChangeTest : public ServerFixture {
 protected:
  json alter(const std::vector<std::pair<std::string, std::string>>& sets) {
    json configs = json::array();
    for (const auto& [name, value] : sets) {
      configs.push_back({{"name", name}, {"op", "SET"}, {"value", value}});
    }
    return call({{"api", "IncrementalAlterConfigs"}, {"configs", configs}});
  }

  // DescribeConfigs as name -> entry.
  std::map<std::string, json> configs() {
    std::map<std::string, json> out;
    const json response = call_ok({{"api", "DescribeConfigs"}});
    for (const auto& c : response["configs"]) {
      out[c["name"].get<std::string>()] = c;
    }
    return out;
  }

  std::string active_strategy() {
    return call_ok({{"api", "DescribeLogDirs"}})["strategy"].value("name", "?");
  }

  // Creates partitions 0..count-1 of `topic`; returns each one's log dir.
  std::vector<std::string> create(const std::string& topic, int32_t count) {
    json partitions = json::array();
    for (int32_t p = 0; p < count; ++p) partitions.push_back(p);
    json r = call_ok({{"api", "CreatePartitions"}, {"topic", topic}, {"partitions", partitions}});
    std::vector<std::string> dirs;
    for (const auto& p : r["partitions"]) {
      EXPECT_EQ(p["error"], "NONE") << p.dump();
      dirs.push_back(p["logDir"].is_string() ? p["logDir"].get<std::string>() : "");
    }
    return dirs;
  }

  fs::path dynamic_file() const {
    fs::path f = config_file_;
    f += ".dynamic";
    return f;
  }

  // The whole line of `log` around position `at`, without its newline.
  static std::string line_of(const std::string& log, size_t at) {
    const size_t start = log.rfind('\n', at) == std::string::npos ? 0 : log.rfind('\n', at) + 1;
    return log.substr(start, log.find('\n', at) - start);
  }

  // The server log's line that holds `text` (after its time stamp), or "" when none does within
  // five seconds.
  std::string await_log_line(const std::string& text) {
    for (int i = 0; i < 100; ++i) {
      const std::string log = server_log();
      if (size_t at = log.find(text); at != std::string::npos) return line_of(log, at);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return "";
  }

  std::optional<std::string> dynamic_file_content() const {
    if (!fs::exists(dynamic_file())) return std::nullopt;
    return read_file(dynamic_file());
  }
};

TEST_F(ConfigChangeTest, CordonedDirTakesNoNewPartitions) {
  ServerConfig config = default_config(3);
  ASSERT_NO_FATAL_FAILURE(start(config));
  const fs::path cordoned = config.log_dirs[1];
  json r = alter(
      {{"log.directory.select.strategy", "cordon"}, {"cordoned.log.dirs", cordoned.string()}});
  ASSERT_EQ(r["error"], "NONE") << r.dump();
  EXPECT_EQ(active_strategy(), "cordon");

  for (const auto& dir : create("fenced", 9)) EXPECT_NE(dir, cordoned.string());

  json describe = call_ok({{"api", "DescribeLogDirs"}});
  for (const auto& d : config.log_dirs) {
    json entry = dir_entry(describe, d);
    ASSERT_TRUE(entry.is_object()) << d << " missing from " << describe.dump();
    EXPECT_EQ(entry["isCordoned"], d == cordoned) << entry.dump();
    if (d == cordoned) {
      EXPECT_TRUE(entry["partitions"].empty()) << entry.dump();
    }
  }
  EXPECT_EQ(server_log().find("LDS_CAP_HONORS_CORDON"), std::string::npos)
      << "cordon honours cordons; no warning expected";
}

TEST_F(ConfigChangeTest, CordonUnderStrategyThatIgnoresItIsKeptByTheBroker) {
  ServerConfig config = default_config(3, "partition");
  ASSERT_NO_FATAL_FAILURE(start(config));
  json r = alter({{"cordoned.log.dirs", config.log_dirs[0].string()}});
  ASSERT_EQ(r["error"], "NONE") << r.dump();
  const std::string log = server_log();
  const size_t at = log.find("LDS_CAP_HONORS_CORDON");
  ASSERT_NE(at, std::string::npos) << "no note that the broker keeps the cordon";
  // Nothing is wrong, so not a warning: the broker keeps the cordon whatever the strategy ranks.
  EXPECT_EQ(line_of(log, at).find(" info  [lds.broker] cordoned.log.dirs is set and strategy "
                                  "partition does not honour cordons itself "
                                  "(LDS_CAP_HONORS_CORDON); the broker leaves cordoned "
                                  "directories out of its ranking."),
            23u)
      << log;
  // partition ranks the empty, cordoned disk1 first every time; the broker skips it.
  for (const auto& dir : create("spread", 6)) EXPECT_NE(dir, config.log_dirs[0].string());
  json entry = dir_entry(call_ok({{"api", "DescribeLogDirs"}}), config.log_dirs[0]);
  EXPECT_EQ(entry["isCordoned"], true) << entry.dump();
}

TEST_F(ConfigChangeTest, EachChangeIsLoggedAtInfoWithItsOldAndNewValueAndItsSource) {
  ServerConfig config = default_config(2, "partition");
  ASSERT_NO_FATAL_FAILURE(start(config));
  ASSERT_EQ(alter({{"log.partition.expected.bytes", "1024"},
                   {"log.directory.select.strategy", "size"},
                   {"log.directory.select.size.keep.free.bytes", "4096"}})["error"],
            "NONE");
  for (const char* line : {
           "log.partition.expected.bytes: 0 → 1024 (admin API)",
           "log.directory.select.strategy: partition → size (admin API)",
           "log.directory.select.size.keep.free.bytes: (unset) → 4096 (admin API)",
           "Strategy size 1.0.0 (keep.free.bytes=4096) is active (generation 2), replacing "
           "partition.",
       }) {
    std::string wanted = " info  [lds.broker] ";
    wanted += line;
    EXPECT_EQ(await_log_line(wanted).find(wanted), 23u) << line << " is missing from\n"
                                                        << server_log();
  }

  config.extra_lines = {"log.dir.rate.window.ms = 1000"};
  write_config(config);
  ASSERT_EQ(::kill(server_pid(), SIGHUP), 0);
  EXPECT_NE(await_log_line(" info  [lds.broker] log.dir.rate.window.ms: 300000 → 1000 (SIGHUP)"),
            "")
      << server_log();
  EXPECT_NE(await_log_line("[lds.broker] Reloaded "), "") << server_log();
  // The dynamic values stay, and are not logged again as changes.
  EXPECT_EQ(server_log().find("log.partition.expected.bytes: 1024"), std::string::npos)
      << server_log();
}

TEST_F(ConfigChangeTest, InvalidCordonEntryGetsKafkaMessageAndChangesNothing) {
  ServerConfig config = default_config(2);
  ASSERT_NO_FATAL_FAILURE(start(config));
  ASSERT_EQ(alter({{"log.partition.expected.bytes", "1024"}})["error"], "NONE");
  const auto configs_before = configs();
  const std::optional<std::string> file_before = dynamic_file_content();
  ASSERT_TRUE(file_before.has_value()) << "the accepted change was not persisted";

  const std::string bad = (temp_ / "not-a-log-dir").string();
  json r = alter({{"log.partition.expected.bytes", "4096"}, {"cordoned.log.dirs", bad}});
  EXPECT_EQ(r["error"], "INVALID_CONFIG") << r.dump();
  // Kafka's DynamicLogConfig text, as server/src/test/java/org/apache/kafka/server/config/
  // DynamicLogConfigTest.java quotes it.
  EXPECT_EQ(r["message"], "Invalid value [" + bad +
                              "] for configuration cordoned.log.dirs: Invalid entries in "
                              "cordoned.log.dirs: [" +
                              bad +
                              "]. All cordoned log dirs must be entries of log.dirs or log.dir.");

  EXPECT_EQ(configs(), configs_before) << "a refused request changed the configs";
  EXPECT_EQ(configs()["log.partition.expected.bytes"]["value"], "1024");
  EXPECT_EQ(dynamic_file_content(), file_before) << "a refused request rewrote the dynamic file";
  json describe = call_ok({{"api", "DescribeLogDirs"}});
  for (const auto& d : log_dirs_of(describe)) EXPECT_EQ(d["isCordoned"], false) << d.dump();
}

TEST_F(ConfigChangeTest, StrategySwitchesFromPartitionToSize) {
  ASSERT_NO_FATAL_FAILURE(start(default_config(3, "partition")));
  json before = call_ok({{"api", "DescribeLogDirs"}})["strategy"];
  EXPECT_EQ(before["name"], "partition");

  json r = alter({{"log.directory.select.strategy", "size"}});
  ASSERT_EQ(r["error"], "NONE") << r.dump();
  json after = call_ok({{"api", "DescribeLogDirs"}})["strategy"];
  EXPECT_EQ(after["name"], "size");
  EXPECT_GT(after["generation"].get<uint64_t>(), before["generation"].get<uint64_t>());
  EXPECT_EQ(after["swaps"], before["swaps"].get<uint64_t>() + 1);

  auto c = configs();
  EXPECT_EQ(c["log.directory.select.strategy"]["value"], "size");
  EXPECT_EQ(c["log.directory.select.strategy"]["source"], "DYNAMIC");

  json created = call_ok({{"api", "CreatePartitions"}, {"topic", "after"}, {"partitions", {0}}});
  EXPECT_EQ(created["partitions"][0]["strategy"], "size") << created.dump();
}

TEST_F(ConfigChangeTest, UnknownStrategyIsRefusedAndOldOneStaysActive) {
  ASSERT_NO_FATAL_FAILURE(start(default_config(3, "partition")));
  ASSERT_EQ(alter({{"log.directory.select.strategy", "size"}})["error"], "NONE");
  const std::optional<std::string> file_before = dynamic_file_content();

  json r = alter({{"log.directory.select.strategy", "nosuch"}});
  EXPECT_EQ(r["error"], "INVALID_CONFIG") << r.dump();
  const std::string file = (build_plugin_dir() / "liblds_nosuch.so").string();
  EXPECT_NE(r.value("message", "").find(file), std::string::npos)
      << "the message should name " << file << ": " << r.dump();

  EXPECT_EQ(active_strategy(), "size");
  EXPECT_EQ(configs()["log.directory.select.strategy"]["value"], "size");
  EXPECT_EQ(dynamic_file_content(), file_before);
  json created = call_ok({{"api", "CreatePartitions"}, {"topic", "still"}, {"partitions", {0}}});
  EXPECT_EQ(created["partitions"][0]["strategy"], "size") << created.dump();
}

TEST_F(ConfigChangeTest, RestartKeepsPartitionsSizesAndDynamicConfig) {
  ServerConfig config = default_config(3, "partition");
  ASSERT_NO_FATAL_FAILURE(start(config));
  create("keep", 5);
  create("other", 2);
  for (int32_t p = 0; p < 5; ++p) {
    call_ok({{"api", "Produce"}, {"topic", "keep"}, {"partition", p}, {"bytes", 4096 * (p + 1)}});
  }
  json r = alter({{"log.directory.select.strategy", "cordon"},
                  {"cordoned.log.dirs", config.log_dirs[2].string()},
                  {"log.directory.select.cordon.order", "size"}});
  ASSERT_EQ(r["error"], "NONE") << r.dump();
  const json dirs_before = log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}));

  ASSERT_NO_FATAL_FAILURE(restart());

  json describe = call_ok({{"api", "DescribeLogDirs"}});
  const json dirs_after = log_dirs_of(describe);
  ASSERT_EQ(dirs_after.size(), dirs_before.size());
  for (size_t i = 0; i < dirs_before.size(); ++i) {
    EXPECT_EQ(dirs_after[i]["logDir"], dirs_before[i]["logDir"]);
    EXPECT_EQ(dirs_after[i]["partitions"], dirs_before[i]["partitions"])
        << "partitions of " << dirs_before[i]["logDir"] << " changed across the restart";
    EXPECT_EQ(dirs_after[i]["isCordoned"], dirs_before[i]["isCordoned"]);
  }
  EXPECT_EQ(describe["strategy"]["name"], "cordon");

  auto c = configs();
  EXPECT_EQ(c["log.directory.select.strategy"]["value"], "cordon");
  EXPECT_EQ(c["log.directory.select.strategy"]["source"], "DYNAMIC");
  EXPECT_EQ(c["cordoned.log.dirs"]["value"], config.log_dirs[2].string());
  EXPECT_EQ(c["cordoned.log.dirs"]["source"], "DYNAMIC");
  EXPECT_EQ(c["log.directory.select.cordon.order"]["value"], "size");
  EXPECT_EQ(c["log.directory.select.cordon.order"]["source"], "DYNAMIC");
  EXPECT_EQ(c["broker.id"]["source"], "STATIC");

  // Appends continue where they stopped: the segment holds one unbroken pattern.
  json produced =
      call_ok({{"api", "Produce"}, {"topic", "keep"}, {"partition", 0}, {"bytes", 100}});
  EXPECT_EQ(produced["size"], 4096 + 100);
  std::string dir;
  for (const auto& d : dirs_after) {
    for (const auto& p : d["partitions"]) {
      if (p["partition"] == "keep-0") dir = d["logDir"].get<std::string>();
    }
  }
  ASSERT_FALSE(dir.empty());
  EXPECT_EQ(lds::test::filler_log_problem(fs::path(dir) / lds::layout::partition_dir("keep", 0),
                                          "keep", 0, 4096 + 100),
            "")
      << "keep-0 does not hold the Produce records after the restart";
}

}  // namespace
}  // namespace lds::integration
