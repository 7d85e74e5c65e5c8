// client_first_contact_test.cpp: what a new operator meets first with the client subcommands, on a
// real server: `create --partitions` is a count as in kafka-topics.sh, the tables show the
// projected fill `size` ranks on beside the fill, --json leaves stdout to the JSON alone, and
// kafka-configs.sh's addressing flags work (through the Kafka listener) or get one sentence.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "byte_units.h"
#include "kafka_listener_fixture.h"

namespace lds::integration {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The line of `text` that shows `dir` as a column of its own.
std::string row_of(const std::string& text, const std::string& dir) {
  for (const std::string& line : lines_of(text)) {
    if (line.rfind(dir + " ", 0) == 0 || line.find(" " + dir + " ") != std::string::npos) {
      return line;
    }
  }
  return "";
}

// Whether `row` shows `first` (perhaps marked "*") and then `second` as its next column.
bool shows_in_turn(const std::string& row, const std::string& first, const std::string& second) {
  std::istringstream in(row);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    if ((words[i] == first || words[i] == first + "*") && words[i + 1] == second) return true;
  }
  return false;
}

std::string percent(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", v);
  return text;
}

// (total − usable + reserved + expected) / total in percent, from the figures of a response's dir.
double projected_of(const json& d, uint64_t expected) {
  const auto total = d["totalBytes"].get<uint64_t>();
  const auto used = total - d["usableBytes"].get<uint64_t>();
  return 100.0 * static_cast<double>(used + d["reservedBytes"].get<uint64_t>() + expected) /
         static_cast<double>(total);
}

double fill_of(const json& d) {
  const auto total = d["totalBytes"].get<uint64_t>();
  return 100.0 * static_cast<double>(total - d["usableBytes"].get<uint64_t>()) /
         static_cast<double>(total);
}

std::vector<std::string> partitions_of(const json& describe) {
  std::vector<std::string> out;
  for (const auto& d : describe["brokers"][0]["logDirs"]) {
    for (const auto& p : d["partitions"]) out.push_back(p["partition"].get<std::string>());
  }
  std::sort(out.begin(), out.end());
  return out;
}

class ClientFirstContactTest : public KafkaListenerTest {
 protected:
  ProcessResult host(std::vector<std::string> args) {
    args.push_back("--socket");
    args.push_back(socket_.string());
    return run_host(args);
  }
};

TEST_F(ClientFirstContactTest, CreatePartitionsIsACountAsInKafkaTopics) {
  ASSERT_NO_FATAL_FAILURE(start(default_config(3)));
  const ProcessResult r = host({"create", "--topic", "orders", "--partitions", "6"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 6u) << r.out;
  for (int p = 0; p < 6; ++p) {
    EXPECT_EQ(lines[static_cast<size_t>(p)].rfind("orders-" + std::to_string(p) + " -> ", 0), 0u)
        << r.out;
  }
  // The older spelling of the count still works; ids go through --partition-ids.
  EXPECT_EQ(host({"create", "--topic", "legacy", "--partition-count", "2"}).exit_code, 0);
  const ProcessResult ids = host({"create", "--topic", "picked", "--partition-ids", "0,3"});
  EXPECT_EQ(ids.exit_code, 0) << ids.err;
  EXPECT_EQ(partitions_of(call_ok({{"api", "DescribeLogDirs"}})),
            (std::vector<std::string>{"legacy-0", "legacy-1", "orders-0", "orders-1", "orders-2",
                                      "orders-3", "orders-4", "orders-5", "picked-0", "picked-3"}));
}

TEST_F(ClientFirstContactTest, CreateRefusesACountWithIdsAndIdsGivenAsTheCount) {
  ASSERT_NO_FATAL_FAILURE(start(default_config(2)));
  const ProcessResult both =
      host({"create", "--topic", "t", "--partitions", "2", "--partition-ids", "0"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_EQ(both.err,
            "lds-host: create takes --partitions N (a count: partitions 0 to N-1) or "
            "--partition-ids LIST, not both.\n");
  const ProcessResult list = host({"create", "--topic", "t", "--partitions", "0,3"});
  EXPECT_EQ(list.exit_code, 2);
  EXPECT_EQ(list.err,
            "lds-host: --partitions 0,3 is not a partition count from 1 to 100000 (--partitions N "
            "creates partitions 0 to N-1; to name partitions, use --partition-ids, e.g. "
            "--partition-ids 0,3).\n");
  const ProcessResult none = host({"create", "--topic", "t"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.err,
            "lds-host: create needs --partitions N (a count: partitions 0 to N-1) or "
            "--partition-ids LIST (e.g. 0,3).\n");
  EXPECT_TRUE(partitions_of(call_ok({{"api", "DescribeLogDirs"}})).empty());
}

// The projected fill `size` ranks on, as the dry run and describe show it.
class ProjectedFillTest : public ClientFirstContactTest {
 protected:
  // create --dry-run for topic b with 2 MiB expected: each candidate's score is the projected fill
  // the plugin reported (ABI 1.2), lowest first, shown after FILL as PROJECTED FILL %.
  void expect_dry_run_shows_projected_fill(const std::vector<std::string>& dry) {
    std::vector<std::string> dry_json = dry;
    dry_json.push_back("--json");
    const ProcessResult js = host(dry_json);
    ASSERT_EQ(js.exit_code, 0) << js.err;
    const json placement = json::parse(js.out)["partitions"][0];
    const ProcessResult table = host(dry);
    ASSERT_EQ(table.exit_code, 0) << table.err;
    EXPECT_NE(table.out.find("\n  RANK LOG DIR                                     FILL PROJECTED "
                             "FILL %       TOTAL        FREE    RESERVED  PARTS  TOPIC  LEFT OUT "
                             "BECAUSE\n"),
              std::string::npos)
        << table.out;
    EXPECT_EQ(placement["scoreName"], "projected fill %");
    double last = -1;
    for (const auto& d : placement["dirs"]) {
      ASSERT_TRUE(d["rank"].is_number()) << d.dump();
      // The plugin's own value, which it sorted on, is the fill the figures project.
      const double score = d["score"].get<double>();
      EXPECT_NEAR(score, projected_of(d, 2 * kMiB), 1e-9) << d.dump();
      EXPECT_GE(score, last) << "ranked by projected fill, lowest first: " << placement.dump();
      last = score;
      char shown[32];
      std::snprintf(shown, sizeof shown, "%.4g", score);
      EXPECT_TRUE(shows_in_turn(row_of(table.out, d["logDir"]), percent(d["fillPercent"]), shown))
          << "FILL then PROJECTED FILL %: " << table.out;
    }
    EXPECT_NE(table.out.find("\n(PROJECTED FILL %: what strategy size ranked each dir on, as it "
                             "reported it. FILL counts only what is written.)\n"),
              std::string::npos)
        << table.out;
  }

  // describe: the same for a new topic's partition, whose expected bytes default to the mean of
  // the hosted partitions (`mean`).
  void expect_describe_shows_projected_fill(uint64_t mean) {
    const json d = call_ok({{"api", "DescribeLogDirs"}});
    EXPECT_EQ(d["newPartitionExpectedBytes"], mean);
    const ProcessResult describe = host({"describe"});
    ASSERT_EQ(describe.exit_code, 0) << describe.err;
    EXPECT_NE(describe.out.find("LOG DIR                                  STATE    CORDONED        "
                                "TOTAL      USABLE    FILL PROJECTED     RESERVED  PARTS        "
                                "DATA\n"),
              std::string::npos)
        << describe.out;
    for (const auto& dir : log_dirs_of(d)) {
      const double projected = dir["projectedFillPercent"].get<double>();
      EXPECT_NEAR(projected, projected_of(dir, mean), 1e-9) << dir.dump();
      EXPECT_TRUE(shows_in_turn(row_of(describe.out, dir["logDir"]), percent(fill_of(dir)),
                                percent(projected)))
          << "FILL then PROJECTED: " << describe.out;
    }
    EXPECT_NE(describe.out.find("(PROJECTED: (used + reserved + 1.0 MiB expected of a new "
                                "partition) / total, what size ranks on, lowest first; FILL counts "
                                "only what is written.)\n"),
              std::string::npos)
        << describe.out;
  }

  void set_strategy(const json& configs) {
    call_ok({{"api", "IncrementalAlterConfigs"}, {"configs", configs}});
  }
};

// Three unequal tmpfs disks (8, 16 and 32 MiB), as the operator had: `size` ranks by what
// each will hold once the partition is placed. The dry run shows it as the plugin reported it
// (ABI 1.2 scores, column "PROJECTED FILL %"), describe as PROJECTED.
TEST_F(ProjectedFillTest, DryRunAndDescribeShowTheProjectedFillSizeRanksOn) {
  ServerConfig c = default_config(3, "size");
  const uint64_t sizes[] = {8, 16, 32};
  for (size_t i = 0; i < 3; ++i) {
    if (std::string why = mount_tmpfs(c.log_dirs[i], sizes[i]); !why.empty()) GTEST_SKIP() << why;
  }
  ASSERT_NO_FATAL_FAILURE(start(c));
  // One partition reserving 6 MiB, 1 MiB of it written.
  call_ok({{"api", "CreatePartitions"},
           {"topic", "a"},
           {"partitions", {0}},
           {"expectedBytes", 6 * kMiB}});
  call_ok({{"api", "Produce"}, {"topic", "a"}, {"partition", 0}, {"bytes", kMiB}});
  const std::vector<std::string> dry = {"create",       "--dry-run", "--topic",          "b",
                                        "--partitions", "1",         "--expected-bytes", "2MiB"};
  ASSERT_NO_FATAL_FAILURE(expect_dry_run_shows_projected_fill(dry));
  ASSERT_NO_FATAL_FAILURE(expect_describe_shows_projected_fill(kMiB));  // a-0's 1 MiB

  // cordon ranks by projected fill only with order=size; partition never does.
  set_strategy({{{"name", "log.directory.select.strategy"}, {"op", "SET"}, {"value", "cordon"}},
                {{"name", "log.directory.select.cordon.order"}, {"op", "SET"}, {"value", "size"}}});
  EXPECT_NE(host({"describe"}).out.find(" PROJECTED "), std::string::npos);
  set_strategy(
      {{{"name", "log.directory.select.strategy"}, {"op", "SET"}, {"value", "partition"}}});
  EXPECT_EQ(host({"describe"}).out.find("PROJECTED"), std::string::npos);
  EXPECT_EQ(host(dry).out.find("PROJECTED"), std::string::npos);
}

// `| jq` reads stdout whole: with --json it is one JSON document and nothing else, for every
// subcommand that takes --json.
TEST_F(ClientFirstContactTest, EveryJsonCommandPrintsOnlyJsonOnStdout) {
  ASSERT_NO_FATAL_FAILURE(start(default_config(2)));
  const std::string disk2 = config_.log_dirs[1].string();
  const std::vector<std::vector<std::string>> commands = {
      {"describe"},
      {"create", "--topic", "t", "--partitions", "2"},
      {"create", "--dry-run", "--topic", "t", "--partition-ids", "5"},
      {"produce", "--topic", "t", "--partition", "0", "--bytes", "4KiB"},
      {"configs", "--describe"},
      {"configs", "--describe", "--all"},
      {"configs", "--alter", "--add-config", "log.partition.expected.bytes=1024"},
      {"balance", "--status"},
      {"balance", "--plan"},
      {"drain", "--dir", disk2, "--wait", "--timeout", "20"},
      {"delete", "--topic", "t"},
  };
  for (std::vector<std::string> args : commands) {
    std::string shown;
    for (const auto& a : args) shown += a + " ";
    args.push_back("--json");
    const ProcessResult r = host(args);
    EXPECT_FALSE(r.out.empty()) << shown << r.err;
    EXPECT_FALSE(json::parse(r.out, nullptr, false).is_discarded()) << shown << "stdout:\n"
                                                                    << r.out;
  }
}

// kafka-configs.sh's own command line works against the broker's Kafka listener, and prints what
// the same command prints over the admin socket.
// `lds-host configs` over the Kafka listener, as kafka-configs.sh is called.
class KafkaConfigsCommandTest : public ClientFirstContactTest {
 protected:
  // configs --bootstrap-server <listener> --entity-type brokers --entity-name `broker` `args`.
  ProcessResult kafka(std::vector<std::string> args, const std::string& broker = "0") {
    std::vector<std::string> all = {"configs", "--bootstrap-server", address_, "--entity-type",
                                    "brokers", "--entity-name",      broker};
    all.insert(all.end(), args.begin(), args.end());
    return run_host(all);
  }

  // With the replica-move throttle set, `--describe` with `mode` prints over the Kafka listener
  // what it prints over the admin socket, less the throttle's default synonym, which Kafka does
  // not list (a dynamic-only key there).
  void expect_both_paths_print_the_same(const char* mode) {
    const ProcessResult over_kafka = kafka({"--describe", mode});
    std::string over_socket = host({"configs", "--describe", mode}).out;
    const std::string default_synonym =
        ", DEFAULT_CONFIG:replica.alter.log.dirs.io.max.bytes.per.second=9223372036854775807";
    if (size_t at = over_socket.find(default_synonym); at != std::string::npos) {
      over_socket.erase(at, default_synonym.size());
    }
    EXPECT_EQ(over_kafka.exit_code, 0) << over_kafka.err;
    EXPECT_EQ(over_kafka.out, over_socket) << mode;
  }
};

TEST_F(KafkaConfigsCommandTest, TakesKafkasCommandLineThroughTheKafkaListener) {
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(2)));
  const ProcessResult set =
      kafka({"--alter", "--add-config", "log.partition.expected.bytes=1048576"});
  EXPECT_EQ(set.exit_code, 0) << set.err;
  EXPECT_EQ(
      set.out.rfind("Completed updating config for broker 0.\nlog.partition.expected.bytes: ", 0),
      0u)
      << set.out;
  EXPECT_TRUE(set.out.ends_with(" → 1048576\n")) << set.out;

  const ProcessResult dynamic = kafka({"--describe"});
  EXPECT_EQ(dynamic.exit_code, 0) << dynamic.err;
  EXPECT_EQ(dynamic.out,
            "Dynamic configs for broker 0 are:\n"
            "  log.partition.expected.bytes=1048576 sensitive=false "
            "synonyms={DYNAMIC_BROKER_CONFIG:log.partition.expected.bytes=1048576, "
            "DEFAULT_CONFIG:log.partition.expected.bytes=0}\n");
  // The replica-move throttle is listed over Kafka's protocol only once set.
  EXPECT_EQ(
      kafka({"--describe", "--all"}).out.find("replica.alter.log.dirs.io.max.bytes.per.second"),
      std::string::npos);
  EXPECT_EQ(
      kafka({"--alter", "--add-config", "replica.alter.log.dirs.io.max.bytes.per.second=1048576"})
          .exit_code,
      0);
  for (const char* mode : {"--all", "--table"}) expect_both_paths_print_the_same(mode);
  const ProcessResult js = kafka({"--describe", "--json"});
  EXPECT_FALSE(json::parse(js.out, nullptr, false).is_discarded()) << js.out;

  // Another broker's id is refused by the broker, in Kafka's words.
  const ProcessResult other = kafka({"--describe"}, "3");
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_EQ(other.err,
            "lds-host: INVALID_REQUEST: Unexpected broker id, expected 0 or empty string, but "
            "received 3\n");

  const ProcessResult removed =
      kafka({"--alter", "--delete-config",
             "log.partition.expected.bytes,replica.alter.log.dirs.io.max.bytes.per.second"});
  EXPECT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_EQ(kafka({"--describe"}).out, "Dynamic configs for broker 0 are:\n");
}

TEST_F(ClientFirstContactTest, KafkaAddressingFlagsOutsideWhatIsSupportedGetOneSentence) {
  ASSERT_NO_FATAL_FAILURE(start(default_config(2)));
  const ProcessResult describe = run_host({"describe", "--bootstrap-server", "127.0.0.1:9092"});
  EXPECT_EQ(describe.exit_code, 2);
  EXPECT_EQ(describe.out, "");
  EXPECT_EQ(describe.err,
            "lds-host describe talks to the broker's admin socket; --bootstrap-server is not "
            "supported here: use --config <broker.toml> or --socket <path>.\n");
  const ProcessResult both =
      host({"configs", "--bootstrap-server", "127.0.0.1:9092", "--entity-name", "0", "--describe"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_EQ(both.err,
            "lds-host configs takes --bootstrap-server (the Kafka listener) or --config/--socket "
            "(the admin socket), not both.\n");
  const ProcessResult unnamed =
      run_host({"configs", "--bootstrap-server", "127.0.0.1:9092", "--describe"});
  EXPECT_EQ(unnamed.exit_code, 2);
  EXPECT_EQ(unnamed.err,
            "lds-host configs --bootstrap-server needs --entity-type brokers --entity-name "
            "<broker id>.\n");

  // Kafka's entity flags naming this broker work on the admin socket too.
  const ProcessResult ours =
      host({"configs", "--entity-type", "brokers", "--entity-name", "0", "--describe"});
  EXPECT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_EQ(ours.out, "Dynamic configs for broker 0 are:\n");
  EXPECT_EQ(host({"describe", "--entity-type", "brokers", "--entity-name", "0"}).exit_code, 0);

  const ProcessResult other = host({"configs", "--entity-type", "brokers", "--entity-name", "3",
                                    "--alter", "--add-config", "log.level=debug"});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_EQ(other.err, "lds-host: --socket " + socket_.string() +
                           " is broker 0; --entity-name 3 names another broker: run lds-host "
                           "against that broker's --config or --socket.\n");
  const ProcessResult topics =
      host({"configs", "--entity-type", "topics", "--entity-name", "t", "--describe"});
  EXPECT_EQ(topics.exit_code, 2);
  EXPECT_EQ(topics.err,
            "lds-host configs shows this broker only; --entity-type topics is not supported: use "
            "--entity-type brokers.\n");
  const ProcessResult defaults =
      host({"configs", "--entity-type", "brokers", "--entity-default", "--describe"});
  EXPECT_EQ(defaults.exit_code, 2);
  EXPECT_EQ(defaults.err,
            "lds-host configs has no cluster-wide default configs; --entity-default is not "
            "supported: name this broker with --entity-name <broker.id>, or leave it out.\n");
  // The refused alter changed nothing.
  const json described = call_ok({{"api", "DescribeConfigs"}});
  for (const auto& cfg : described["configs"]) {
    EXPECT_NE(cfg["source"], "DYNAMIC") << cfg.dump();
  }
}

}  // namespace
}  // namespace lds::integration
