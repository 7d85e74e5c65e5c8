// dynamic_config_startup_test.cpp: a dynamic config entry that no longer validates when the broker
// starts (a cordon of a dir since removed from log.dirs, a key that cannot be dynamic) is logged
// with its file:line:column and left out; the file stays as it is until the next change.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/config.h"
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

TEST_F(DynamicConfigStartup, ACordonOfARemovedDirIsLoggedAndLeftOutUntilTheNextChange) {
  const fs::path config = write("broker.toml", "log.dirs = [\"a\"]\n");
  const std::string dynamic_text =
      "# Dynamic overrides of broker.toml, set through IncrementalAlterConfigs; they win over "
      "the file.\n# Written by lds-host; do not edit while it runs.\n\"cordoned.log.dirs\" = \"" +
      dir("b").string() + "\"\n\"log.level\" = \"debug\"\n";
  const fs::path dynamic = write("broker.toml.dynamic", dynamic_text);

  LogCapture capture("lds.config");
  ConfigStore store(config);
  EXPECT_TRUE(store.current().cordoned.empty());
  EXPECT_FALSE(store.current().cordon_all);
  EXPECT_EQ(store.current().log_level, "debug") << "the entries that still validate apply";
  const auto rows = store.describe();
  EXPECT_EQ(row(rows, "cordoned.log.dirs")->source, "DEFAULT");
  EXPECT_EQ(row(rows, "log.level")->source, "DYNAMIC");
  EXPECT_NE(capture.text().find(dynamic.string() + ":3:1: Invalid value [" + dir("b").string() +
                                "] for configuration cordoned.log.dirs: Invalid entries in "
                                "cordoned.log.dirs: [" +
                                dir("b").string() +
                                "]. All cordoned log dirs must be entries of log.dirs or log.dir. "
                                "The broker starts without this dynamic entry; " +
                                dynamic.string() + " keeps it until the next configuration change"),
            std::string::npos)
      << capture.text();
  EXPECT_EQ(read_all(dynamic), dynamic_text) << "the file changed before any change was asked";

  store.commit({{"log.level", ConfigAlteration::Op::kSet, "info"}});
  const std::string rewritten = read_all(dynamic);
  EXPECT_EQ(rewritten.find("cordoned.log.dirs"), std::string::npos) << rewritten;
  EXPECT_NE(rewritten.find("\"log.level\" = \"info\""), std::string::npos) << rewritten;
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
