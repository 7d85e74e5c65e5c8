// kafka_tool_text_test.cpp: `lds-host configs` and `lds-host reassign` print what kafka-configs.sh
// and kafka-reassign-partitions.sh print, so scripts written for those read our output. Each
// expected text names the Kafka source it comes from (apache/kafka, trunk).
#include <gtest/gtest.h>

#include <fstream>

#include "server_fixture.h"

namespace lds::integration {
namespace {

class KafkaToolTextTest : public ServerFixture {
 protected:
  ProcessResult configs(std::vector<std::string> args) {
    args.insert(args.begin(), {"configs", "--socket", socket_.string()});
    return run_host(args);
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
  r = configs({"--describe", "--table"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("NAME ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("log.level"), std::string::npos);
  EXPECT_NE(r.out.find("DYNAMIC"), std::string::npos);
}

// ConfigCommand.parseConfigsToBeAdded: several keys in one --add-config, a list value grouped in
// square brackets, the brackets removed; alterConfig then prints "Completed updating config for " +
// entityTypeSingular + " " + entityName + ".". Each key follows as `name: old → new`.
TEST_F(KafkaToolTextTest, AlterTakesKafkaSyntaxAndShowsEachChange) {
  start(default_config(3));
  const std::string d1 = config_.log_dirs[0].string();
  const std::string d2 = config_.log_dirs[1].string();
  ProcessResult r = configs(
      {"--alter", "--add-config", "cordoned.log.dirs=[" + d1 + "," + d2 + "], log.level = warn"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "Completed updating config for broker 0.\n"
            "cordoned.log.dirs: \"\" → " +
                d1 + "," + d2 +
                "\n"
                "log.level: info → warn\n");

  // A replaced list is visible; the repeatable form still works beside it.
  r = configs({"--alter", "--add-config", "cordoned.log.dirs=[" + d2 + "]", "--add-config",
               "log.dir.rate.window.ms=1000"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "Completed updating config for broker 0.\n"
            "cordoned.log.dirs: " +
                d1 + "," + d2 + " → " + d2 +
                "\n"
                "log.dir.rate.window.ms: 300000 → 1000\n");

  // --delete-config 'k1,k2' (ConfigCommandOptions: withValuesSeparatedBy(',')).
  r = configs({"--alter", "--delete-config", "cordoned.log.dirs,log.level"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "Completed updating config for broker 0.\n"
            "cordoned.log.dirs: " +
                d2 +
                " → \"\"\n"
                "log.level: warn → info\n");

  // alterResourceConfig: "Invalid config(s): " + the keys to delete that are not set dynamically.
  r = configs({"--alter", "--delete-config", "log.level,cordoned.log.dirs"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "lds-host: Invalid config(s): log.level,cordoned.log.dirs\n");

  // parseConfigsToBeAdded's sentences, two spaces included.
  r = configs({"--alter", "--add-config", "log.level=info,oops"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "lds-host: Invalid entity config: all configs to be added must be in the format "
            "\"key=val\" or  \"key=[val1,val2]\" to group values which contain commas.\n");
  r = configs({"--alter", "--add-config", "log level=info"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "lds-host: Invalid character found for config key: log level\n");
  r = configs({"--describe"});
  EXPECT_EQ(r.out,
            "Dynamic configs for broker 0 are:\n"
            "  log.dir.rate.window.ms=1000 sensitive=false "
            "synonyms={DYNAMIC_BROKER_CONFIG:log.dir.rate.window.ms=1000, "
            "DEFAULT_CONFIG:log.dir.rate.window.ms=300000}\n");
}

}  // namespace
}  // namespace lds::integration
