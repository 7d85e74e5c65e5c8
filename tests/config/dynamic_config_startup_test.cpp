// dynamic_config_startup_test.cpp: a dynamic config entry that no longer validates when the broker
// starts (a key that cannot be dynamic) is logged with its file:line:column and left out, the file
// staying as it is until the next change; a dynamic cordon of a dir since removed from log.dirs is
// pruned from the file with one info line.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config/config.h"
#include "host_test_support.h"

namespace lds {
namespace {

namespace fs = std::filesystem;
using test::LogCapture;
using test::TempDir;

std::string read_all(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class DynamicConfigStartup : public ::testing::Test {
 protected:
  fs::path write(const std::string& name, const std::string& text) {
    const fs::path file = tmp_.path() / name;
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }
  const DescribedConfig* row(const std::vector<DescribedConfig>& rows, const std::string& name) {
    for (const auto& r : rows) {
      if (r.name == name) return &r;
    }
    return nullptr;
  }
  fs::path dir(const std::string& name) { return tmp_.path() / name; }

  TempDir tmp_;
};

// The lines of `log` that mention `text`.
std::vector<std::string> lines_with(const std::string& log, const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find(text) != std::string::npos) out.push_back(line);
  }
  return out;
}

const std::string kDynamicHeader =
    "# Dynamic overrides of broker.toml, set through IncrementalAlterConfigs; they win over the "
    "file.\n# Written by lds-host; do not edit while it runs.\n";

TEST_F(DynamicConfigStartup, ACordonOfADirRemovedFromLogDirsIsPrunedWithOneInfoLine) {
  // The drained disk b left log.dirs; its cordon, the only entry of the key, goes with it.
  const fs::path config = write("broker.toml", "log.dirs = [\"a\"]\n");
  const fs::path dynamic =
      write("broker.toml.dynamic", kDynamicHeader + "\"cordoned.log.dirs\" = \"" +
                                       dir("b").string() + "\"\n\"log.level\" = \"debug\"\n");

  LogCapture capture("lds.config");
  ConfigStore store(config);
  EXPECT_TRUE(store.current().cordoned.empty());
  EXPECT_FALSE(store.current().cordon_all);
  EXPECT_EQ(store.current().log_level, "debug");
  const auto rows = store.describe();
  EXPECT_EQ(row(rows, "cordoned.log.dirs")->source, "DEFAULT");
  EXPECT_EQ(row(rows, "log.level")->source, "DYNAMIC");
  const std::string log = capture.text();
  const std::vector<std::string> lines = lines_with(log, dir("b").string());
  ASSERT_EQ(lines.size(), 1u) << log;
  EXPECT_TRUE(lines[0].ends_with("[info] Pruned " + dir("b").string() +
                                 " from cordoned.log.dirs: it is no longer in log.dirs."))
      << lines[0];
  EXPECT_EQ(log.find("[warning]"), std::string::npos) << log;
  EXPECT_EQ(read_all(dynamic), kDynamicHeader + "\"log.level\" = \"debug\"\n");

  // The next start has nothing to prune and says nothing.
  LogCapture again("lds.config");
  ConfigStore restarted(config);
  EXPECT_EQ(again.text().find("cordoned.log.dirs"), std::string::npos) << again.text();
  EXPECT_EQ(read_all(dynamic), kDynamicHeader + "\"log.level\" = \"debug\"\n");
}

TEST_F(DynamicConfigStartup, PruningARetiredCordonKeepsTheOtherEntriesAsWritten) {
  const fs::path config = write("broker.toml", "log.dirs = [\"a\", \"c\"]\n");
  const fs::path dynamic = write(
      "broker.toml.dynamic",
      kDynamicHeader + "\"cordoned.log.dirs\" = \"" + dir("b").string() + "," + dir("c").string() +
          "\"\n\"log.dir.balance.enable\" = \"true\"\n\"log.level\" = \"debug\"\n");
  LogCapture capture("lds.config");
  ConfigStore store(config);
  ASSERT_EQ(store.current().cordoned.size(), 1u);
  EXPECT_EQ(store.current().cordoned[0], dir("c"));
  EXPECT_EQ(lines_with(capture.text(), "Pruned").size(), 1u) << capture.text();
  EXPECT_EQ(read_all(dynamic), kDynamicHeader + "\"cordoned.log.dirs\" = \"" + dir("c").string() +
                                   "\"\n\"log.dir.balance.enable\" = \"true\"\n\"log.level\" = "
                                   "\"debug\"\n");
}

TEST_F(DynamicConfigStartup, AnEmptiedDynamicCordonStillOverridesTheFilesCordon) {
  // The file cordons a; the dynamic value (b only) lifted that cordon. Pruning b keeps it lifted.
  const fs::path config = write("broker.toml", "log.dirs = [\"a\"]\ncordoned.log.dirs = [\"a\"]\n");
  const fs::path dynamic =
      write("broker.toml.dynamic",
            kDynamicHeader + "\"cordoned.log.dirs\" = \"" + dir("b").string() + "\"\n");
  ConfigStore store(config);
  EXPECT_TRUE(store.current().cordoned.empty());
  EXPECT_EQ(row(store.describe(), "cordoned.log.dirs")->source, "DYNAMIC");
  EXPECT_EQ(read_all(dynamic), kDynamicHeader + "\"cordoned.log.dirs\" = \"\"\n");
}

TEST_F(DynamicConfigStartup, ACordonOfEveryDirIsNeverPruned) {
  const fs::path config = write("broker.toml", "log.dirs = [\"a\"]\n");
  const std::string text = kDynamicHeader + "\"cordoned.log.dirs\" = \"*\"\n";
  const fs::path dynamic = write("broker.toml.dynamic", text);
  LogCapture capture("lds.config");
  ConfigStore store(config);
  EXPECT_TRUE(store.current().cordon_all);
  EXPECT_EQ(capture.text().find("Pruned"), std::string::npos) << capture.text();
  EXPECT_EQ(read_all(dynamic), text);
}

TEST_F(DynamicConfigStartup, AFileCordonOfADirOutsideLogDirsStillRefusesTheStart) {
  // The operator wrote it in the file: the start stops with Kafka's sentence, and the file is
  // theirs to fix.
  const fs::path config = write("broker.toml", "log.dirs = [\"a\"]\ncordoned.log.dirs = [\"b\"]\n");
  try {
    ConfigStore store(config);
    FAIL() << "the start went on";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              config.string() +
                  ":2:22: Invalid value [b] for configuration cordoned.log.dirs: Invalid entries "
                  "in cordoned.log.dirs: [b]. All cordoned log dirs must be entries of log.dirs "
                  "or log.dir.");
  }
}

TEST_F(DynamicConfigStartup, EntriesThatCanNeverBeDynamicAreLoggedAndLeftOut) {
  const fs::path config = write("broker.toml", "log.dirs = [\"a\"]\nbroker.id = 4\n");
  const std::string dynamic_text =
      "\"log.level\" = \"debug\"\n\"broker.id\" = \"3\"\n\"log.partition.expected.bytes\" = 5\n"
      "\"no.such.key\" = \"1\"\n";
  const fs::path dynamic = write("broker.toml.dynamic", dynamic_text);
  LogCapture capture("lds.config");
  ConfigStore store(config);
  EXPECT_EQ(store.current().broker_id, 4);
  EXPECT_EQ(store.current().log_level, "debug");
  EXPECT_EQ(store.current().partition_expected_bytes, 0u);
  const std::string log = capture.text();
  for (const std::string& warning :
       {dynamic.string() +
            ":2:1: broker.id: cannot be altered dynamically; it is a static config (edit the file "
            "and restart).",
        dynamic.string() +
            ":3:1: log.partition.expected.bytes: must be a string in the dynamic config file, "
            "not an integer.",
        dynamic.string() + ":4:1: no.such.key: unknown config key."}) {
    EXPECT_NE(log.find(warning + " The broker starts without this dynamic entry"),
              std::string::npos)
        << warning << "\nin:\n"
        << log;
  }
  EXPECT_EQ(read_all(dynamic), dynamic_text);
}

TEST_F(DynamicConfigStartup, AFileThatIsNotTomlStillRefusesTheStart) {
  const fs::path config = write("broker.toml", "log.dirs = [\"a\"]\n");
  write("broker.toml.dynamic", "\"log.level\" = \n");
  EXPECT_THROW(ConfigStore store(config), ConfigError);
}

}  // namespace
}  // namespace lds
