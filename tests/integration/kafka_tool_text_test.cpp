// kafka_tool_text_test.cpp: `lds-host configs` and `lds-host reassign` print what kafka-configs.sh
// and kafka-reassign-partitions.sh print, so scripts written for those read our output. Each
// expected text names the Kafka source it comes from (apache/kafka, trunk).
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>
#include <tuple>

#include "server_fixture.h"

namespace lds::integration {
namespace {

class KafkaToolTextTest : public ServerFixture {
 protected:
  ProcessResult configs(std::vector<std::string> args) {
    args.insert(args.begin(), {"configs", "--socket", socket_.string()});
    return run_host(args);
  }

  ProcessResult reassign(const fs::path& file, std::vector<std::string> args = {}) {
    args.insert(args.begin(), {"reassign", "--socket", socket_.string(), "--reassignment-json-file",
                               file.string()});
    return run_host(args);
  }

  // A reassignment file moving each (topic, partition) of this broker to `dir`.
  fs::path moves_file(const std::string& name,
                      const std::vector<std::tuple<std::string, int, fs::path>>& moves) {
    json partitions = json::array();
    for (const auto& [topic, partition, dir] : moves) {
      partitions.push_back({{"topic", topic},
                            {"partition", partition},
                            {"replicas", {0}},
                            {"log_dirs", {dir.string()}}});
    }
    fs::path file = temp_ / name;
    std::ofstream(file) << json{{"version", 1}, {"partitions", partitions}}.dump();
    return file;
  }

  // The dir `tp` ("t-0") is current in.
  fs::path current_dir(const std::string& tp) {
    for (const auto& d : log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}))) {
      for (const auto& p : d["partitions"]) {
        if (p["partition"] == tp && !p["isFuture"].get<bool>())
          return d["logDir"].get<std::string>();
      }
    }
    return {};
  }
  // A log dir other than the one `tp` is in.
  fs::path other_dir(const std::string& tp) {
    const fs::path now = current_dir(tp);
    return config_.log_dirs[0] == now ? config_.log_dirs[1] : config_.log_dirs[0];
  }

  bool wait_for_no_move() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      bool moving = false;
      for (const auto& d : log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}))) {
        for (const auto& p : d["partitions"]) moving = moving || p["isFuture"].get<bool>();
      }
      if (!moving) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  void set_config(const std::string& name, const std::string& value) {
    call_ok({{"api", "IncrementalAlterConfigs"},
             {"configs", json::array({{{"name", name}, {"op", "SET"}, {"value", value}}})}});
  }
  void delete_config(const std::string& name) {
    call_ok({{"api", "IncrementalAlterConfigs"},
             {"configs", json::array({{{"name", name}, {"op", "DELETE"}}})}});
  }
  // `configs --alter` with `args`: exit 0 and Kafka's completion line, then `changes` (one
  // `name: old → new` line each).
  void expect_altered(std::vector<std::string> args, const std::string& changes) {
    args.insert(args.begin(), "--alter");
    const ProcessResult r = configs(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "Completed updating config for broker 0.\n" + changes);
  }
  // `configs --alter` with `args`: refused with `exit_code` and the one line `error`.
  void expect_alter_refused(std::vector<std::string> args, int exit_code,
                            const std::string& error) {
    args.insert(args.begin(), "--alter");
    const ProcessResult r = configs(args);
    EXPECT_EQ(r.exit_code, exit_code);
    EXPECT_EQ(r.err, "lds-host: " + error + "\n");
  }
  // `configs --describe --table`: every column starts where its heading does, the longest key
  // (replica.alter.log.dirs.io.max.bytes.per.second) included.
  void expect_table_columns_aligned() {
    const ProcessResult r = configs({"--describe", "--table"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("NAME ", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("log.level"), std::string::npos);
    std::istringstream table(r.out);
    std::string header;
    std::getline(table, header);
    const size_t columns[] = {header.find("SOURCE"), header.find("DYNAMIC"), header.find("VALUE")};
    size_t rows = 0;
    bool saw_longest = false;
    for (std::string line; std::getline(table, line); ++rows) {
      saw_longest =
          saw_longest || line.starts_with("replica.alter.log.dirs.io.max.bytes.per.second ");
      for (size_t at : columns) {
        ASSERT_NE(at, std::string::npos) << header;
        ASSERT_GE(line.size(), at) << line;  // an empty value ends the line at its column
        EXPECT_TRUE(line[at - 2] == ' ' && line[at - 1] == ' ' &&
                    (line.size() == at || line[at] != ' '))
            << "column at " << at << " out of line in:\n"
            << header << "\n"
            << line;
      }
    }
    EXPECT_GT(rows, 10u) << r.out;
    EXPECT_TRUE(saw_longest) << r.out;
  }

  // The value DescribeConfigs gives `name`.
  std::string config_value(const std::string& name) {
    const json r = call_ok({{"api", "DescribeConfigs"}});
    for (const auto& c : r["configs"]) {
      if (c.value("name", "") == name) return c.value("value", "");
    }
    return "(not described: " + r.dump().substr(0, 600) + ")";
  }
};

// tools/src/main/java/org/apache/kafka/tools/ConfigCommand.java, describeResourceConfig: without
// --all only the entries whose source is DYNAMIC_BROKER_CONFIG, under "Dynamic configs for broker
// <id> are:"; each "  " + name + "=" + value + " sensitive=" + isSensitive + " synonyms=" +
// {source:name=value, ...}, sorted by name (getResourceConfig).
TEST_F(KafkaToolTextTest, DescribeListsTheDynamicConfigsAsKafkaConfigsDoes) {
  ServerConfig config = default_config(2);
  config.extra_lines.push_back("log.dir.rate.window.ms = 7000");
  start(config);
  ProcessResult r = configs({"--describe"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Dynamic configs for broker 0 are:\n");

  r = configs({"--alter", "--add-config", "log.level=debug,log.dir.rate.window.ms=9000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = configs({"--describe"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "Dynamic configs for broker 0 are:\n"
            "  log.dir.rate.window.ms=9000 sensitive=false "
            "synonyms={DYNAMIC_BROKER_CONFIG:log.dir.rate.window.ms=9000, "
            "STATIC_BROKER_CONFIG:log.dir.rate.window.ms=7000, "
            "DEFAULT_CONFIG:log.dir.rate.window.ms=300000}\n"
            "  log.level=debug sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.level=debug, "
            "DEFAULT_CONFIG:log.level=info}\n");

  // --all: "All configs for broker <id> are:" and every entry, static ones included.
  r = configs({"--describe", "--all"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("All configs for broker 0 are:\n", 0), 0u) << r.out;
  EXPECT_NE(
      r.out.find("\n  broker.id=0 sensitive=false synonyms={STATIC_BROKER_CONFIG:broker.id=0, "
                 "DEFAULT_CONFIG:broker.id=0}\n"),
      std::string::npos)
      << r.out;
  EXPECT_LT(r.out.find("\n  broker.id="), r.out.find("\n  log.level="));  // sorted by name

  // Today's table stays behind --table.
  ASSERT_NO_FATAL_FAILURE(expect_table_columns_aligned());
}

// ConfigCommand.parseConfigsToBeAdded: several keys in one --add-config, a list value grouped in
// square brackets, the brackets removed; alterConfig then prints "Completed updating config for " +
// entityTypeSingular + " " + entityName + ".". Each key follows as `name: old → new`.
TEST_F(KafkaToolTextTest, AlterTakesKafkaSyntaxAndShowsEachChange) {
  start(default_config(3));
  const std::string d1 = config_.log_dirs[0].string();
  const std::string d2 = config_.log_dirs[1].string();
  expect_altered({"--add-config", "cordoned.log.dirs=[" + d1 + "," + d2 + "], log.level = warn"},
                 "cordoned.log.dirs: \"\" → " + d1 + "," + d2 + "\nlog.level: info → warn\n");

  // A replaced list is visible; the repeatable form still works beside it.
  expect_altered({"--add-config", "cordoned.log.dirs=[" + d2 + "]", "--add-config",
                  "log.dir.rate.window.ms=1000"},
                 "cordoned.log.dirs: " + d1 + "," + d2 + " → " + d2 +
                     "\nlog.dir.rate.window.ms: 300000 → 1000\n");

  // --delete-config 'k1,k2' (ConfigCommandOptions: withValuesSeparatedBy(',')).
  expect_altered({"--delete-config", "cordoned.log.dirs,log.level"},
                 "cordoned.log.dirs: " + d2 + " → \"\"\nlog.level: warn → info\n");

  // A key set to the value it has is ours to mark: the line says so rather than show no change.
  expect_altered({"--add-config", "log.level=info"}, "log.level: info → info (unchanged)\n");
  configs({"--alter", "--delete-config", "log.level"});

  // alterResourceConfig: "Invalid config(s): " + the keys to delete that are not set dynamically.
  expect_alter_refused({"--delete-config", "log.level,cordoned.log.dirs"}, 1,
                       "Invalid config(s): log.level,cordoned.log.dirs");

  // parseConfigsToBeAdded's sentences, two spaces included.
  expect_alter_refused({"--add-config", "log.level=info,oops"}, 2,
                       "Invalid entity config: all configs to be added must be in the format "
                       "\"key=val\" or  \"key=[val1,val2]\" to group values which contain commas.");
  expect_alter_refused({"--add-config", "log level=info"}, 2,
                       "Invalid character found for config key: log level");
  EXPECT_EQ(configs({"--describe"}).out,
            "Dynamic configs for broker 0 are:\n"
            "  log.dir.rate.window.ms=1000 sensitive=false "
            "synonyms={DYNAMIC_BROKER_CONFIG:log.dir.rate.window.ms=1000, "
            "DEFAULT_CONFIG:log.dir.rate.window.ms=300000}\n");
}

// tools/src/main/java/org/apache/kafka/tools/reassign/ReassignPartitionsCommand.java, executeMoves:
// "Successfully started moving log directory to %s for replica %s-%s with broker %s %n" per
// replica, sorted by compareTopicPartitionReplicas (broker, topic, partition); the trailing space
// is Kafka's.
TEST_F(KafkaToolTextTest, StartingMovesPrintsKafkasLinePerReplicaInItsOrder) {
  start(default_config(3));
  call_ok({{"api", "CreatePartitions"}, {"topic", "b"}, {"partitions", {0, 1}}});
  call_ok({{"api", "CreatePartitions"}, {"topic", "a"}, {"partitions", {0}}});
  const fs::path to_b1 = other_dir("b-1"), to_a0 = other_dir("a-0"), to_b0 = other_dir("b-0");
  const fs::path file =
      moves_file("moves.json", {{"b", 1, to_b1}, {"a", 0, to_a0}, {"b", 0, to_b0}});
  ProcessResult r = reassign(file);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Successfully started moving log directory to " + to_a0.string() +
                       " for replica a-0 with broker 0 \n"
                       "Successfully started moving log directory to " +
                       to_b0.string() +
                       " for replica b-0 with broker 0 \n"
                       "Successfully started moving log directory to " +
                       to_b1.string() + " for replica b-1 with broker 0 \n");
  ASSERT_TRUE(wait_for_no_move());
  EXPECT_EQ(current_dir("a-0"), to_a0);

  // verifyAssignment prints partitionReassignmentStatesToString first: "Status of partition
  // reassignment:", then per partition by compareTopicPartitions "Reassignment of partition %s is
  // completed."; then replicaMoveStatesToString, sorted by compareTopicPartitionReplicas:
  // "Reassignment of replica " + replica + " completed successfully.", the replica as
  // TopicPartitionReplica.toString (topic-partition-broker). With no move left and no
  // --preserve-throttles, clearAllThrottles prints "Clearing broker-level throttles on broker%s
  // %s%n" and "Clearing topic-level throttles on topic%s %s%n" and deletes the throttle.
  set_config("replica.alter.log.dirs.io.max.bytes.per.second", "1048576000");
  r = reassign(file, {"--verify", "--preserve-throttles"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string states =
      "Status of partition reassignment:\n"
      "Reassignment of partition a-0 is completed.\n"
      "Reassignment of partition b-0 is completed.\n"
      "Reassignment of partition b-1 is completed.\n"
      "Reassignment of replica a-0-0 completed successfully.\n"
      "Reassignment of replica b-0-0 completed successfully.\n"
      "Reassignment of replica b-1-0 completed successfully.\n";
  EXPECT_EQ(r.out, states);
  EXPECT_EQ(config_value("replica.alter.log.dirs.io.max.bytes.per.second"), "1048576000");
  r = reassign(file, {"--verify"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, states +
                       "Clearing broker-level throttles on broker 0\n"
                       "Clearing topic-level throttles on topics a,b\n");
  EXPECT_EQ(config_value("replica.alter.log.dirs.io.max.bytes.per.second"), "9223372036854775807");

  // A partition the file gives to another broker: partitionReassignmentStatesToString's "There is
  // no active reassignment of partition " + tp + ", but replica set is " + current + " rather
  // than " + target + "."; its replica is not this broker's, so no replica line (an empty one, as
  // Kafka prints an empty list of replica states).
  const fs::path elsewhere = temp_ / "elsewhere.json";
  std::ofstream(elsewhere) << R"({"version":1,"partitions":[{"topic":"a","partition":0,)"
                           << R"("replicas":[1],"log_dirs":["any"]}]})";
  r = reassign(elsewhere, {"--verify"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "Status of partition reassignment:\n"
            "There is no active reassignment of partition a-0, but replica set is 0 rather than "
            "1.\n"
            "\n"
            "Clearing broker-level throttles on broker 0\n"
            "Clearing topic-level throttles on topic a\n");
}

// A move that still runs: "Reassignment of replica " + replica + " is still in progress.", and
// Kafka's --verify exits 0 then (main fails only on an exception). --wait is for scripts: it waits
// for the moves, then exits 0 only when all completed.
TEST_F(KafkaToolTextTest, VerifyExitsZeroWhileAMoveRunsAndWaitWaitsForIt) {
  start(default_config(2));
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0}}});
  call_ok({{"api", "Produce"}, {"topic", "t"}, {"partition", 0}, {"bytes", 8u << 20}});
  set_config("replica.alter.log.dirs.io.max.bytes.per.second", std::to_string(1u << 20));
  const fs::path target = other_dir("t-0");
  const fs::path file = moves_file("slow.json", {{"t", 0, target}});
  ProcessResult r = reassign(file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = reassign(file, {"--verify"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // A move in flight: no throttle is cleared.
  EXPECT_EQ(r.out,
            "Status of partition reassignment:\n"
            "Reassignment of partition t-0 is completed.\n"
            "Reassignment of replica t-0-0 is still in progress.\n");
  EXPECT_EQ(config_value("replica.alter.log.dirs.io.max.bytes.per.second"),
            std::to_string(1u << 20));

  delete_config("replica.alter.log.dirs.io.max.bytes.per.second");
  r = reassign(file, {"--verify", "--wait"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(
      r.out.ends_with("Status of partition reassignment:\n"
                      "Reassignment of partition t-0 is completed.\n"
                      "Reassignment of replica t-0-0 completed successfully.\n"
                      "Clearing broker-level throttles on broker 0\n"
                      "Clearing topic-level throttles on topic t\n"))
      << r.out;
  EXPECT_EQ(current_dir("t-0"), target);
}

// A failed move (DescribeLogDirs' failedMoves) is ours, not Kafka's: its line, and exit 1.
TEST_F(KafkaToolTextTest, VerifyReportsAFailedMoveAndExitsOne) {
  start(default_config(2));
  call_ok({{"api", "CreatePartitions"}, {"topic", "s"}, {"partitions", {0}}});
  call_ok({{"api", "Produce"}, {"topic", "s"}, {"partition", 0}, {"bytes", 1u << 20}});
  const fs::path target = other_dir("s-0");
  const fs::path stray = target / "s-0";
  fs::create_directories(stray);
  const fs::path file = moves_file("blocked.json", {{"s", 0, target}});
  ProcessResult r = reassign(file);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Successfully started moving log directory to " + target.string() +
                       " for replica s-0 with broker 0 \n");
  ASSERT_TRUE(wait_for_no_move());
  const std::string failed =
      "Status of partition reassignment:\n"
      "Reassignment of partition s-0 is completed.\n"
      "Reassignment of replica s-0-0 failed: KAFKA_STORAGE_ERROR: Cannot move "
      "s-0 to " +
      target.string() + ": " + stray.string() +
      " is already taken by a directory that is not part of the move; the "
      "move is cancelled.\n"
      "Clearing broker-level throttles on broker 0\n"
      "Clearing topic-level throttles on topic s\n";
  r = reassign(file, {"--verify"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, failed);
  r = reassign(file, {"--verify", "--wait"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.ends_with(failed)) << r.out;
}

// The file checks, with Kafka's sentences: ReassignPartitionsCommand.parseExecuteAssignmentArgs
// ("Partition reassignment list cannot be empty", "Partition replica list cannot be empty",
// "Partition reassignment contains duplicate topic partitions: %s"), parsePartitionReassignmentData
// (a missing "partitions" is an empty list) and server-common/.../util/json/DecodeJson.java
// ("Expected `%s` value, received %s", "JSON array" for a list).
TEST_F(KafkaToolTextTest, ReassignmentFileErrorsUseKafkasSentences) {
  start(default_config(2));
  struct Case {
    std::string json;
    std::string message;
  };
  const Case cases[] = {
      {R"({"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[]}]})",
       "Partition replica list cannot be empty"},
      {R"({"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[0]},)"
       R"({"topic":"bar","partition":0,"replicas":[0]},{"topic":"foo","partition":0,"replicas":[0]}]})",
       "Partition reassignment contains duplicate topic partitions: foo-0"},
      {R"({"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":0}]})",
       "Expected `JSON array` value, received 0"},
      {R"({"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[0],"log_dirs":0}]})",
       "Expected `JSON array` value, received 0"},
      {R"({"version":1})", "Partition reassignment list cannot be empty"},
  };
  int i = 0;
  for (const auto& c : cases) {
    const fs::path file = temp_ / ("bad" + std::to_string(i++) + ".json");
    std::ofstream(file) << c.json;
    for (const std::vector<std::string>& mode :
         {std::vector<std::string>{}, std::vector<std::string>{"--verify"}}) {
      ProcessResult r = reassign(file, mode);
      EXPECT_EQ(r.exit_code, 2) << c.json;
      EXPECT_EQ(r.out, "") << c.json;
      EXPECT_EQ(r.err, "lds-host: " + file.string() + ": " + c.message + "\n") << c.json;
    }
  }
}

}  // namespace
}  // namespace lds::integration
