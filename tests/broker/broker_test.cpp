// broker_test.cpp: configuration changes applied to a running broker: strategy swaps, cordons,
// warnings.
#include "broker/broker.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "broker_toml.h"
#include "host_test_support.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

using test::FakeDiskProbe;
using test::LogCapture;
using test::TempDir;

class BrokerTest : public ::testing::Test {
 protected:
  fs::path write_config(const std::string& extra) {
    for (const char* d : {"d1", "d2", "d3"}) {
      probe_->set(fs::weakly_canonical(tmp_.path() / d), 1000000, 1000000);
    }
    return test::BrokerToml()
        .set_raw("broker.id", "0")
        .log_dirs({"d1", "d2", "d3"})
        .plugin_dir(test::plugin_dir())
        .lines(extra)
        .write(tmp_.path() / "broker.toml");
  }

  TempDir tmp_;
  std::shared_ptr<FakeDiskProbe> probe_ = std::make_shared<FakeDiskProbe>();
};

TEST_F(BrokerTest, SaysAtInfoThatTheBrokerKeepsCordonsTheStrategyIgnores) {
  LogCapture logs("lds.broker");
  Broker broker(write_config("cordoned.log.dirs = [\"d1\"]\n"), probe_);
  broker.start();
  EXPECT_NE(logs.text().find("[info] cordoned.log.dirs is set and strategy partition does not "
                             "honour cordons itself (LDS_CAP_HONORS_CORDON); the broker leaves "
                             "cordoned directories out of its ranking.\n"),
            std::string::npos)
      << logs.text();
  EXPECT_EQ(logs.text().find("[warning]"), std::string::npos) << logs.text();
}

TEST_F(BrokerTest, TheCordonNoteIsNotRepeatedForUnrelatedChanges) {
  Broker broker(write_config("cordoned.log.dirs = [\"d1\"]\n"), probe_);
  broker.start();
  LogCapture logs("lds.broker");
  broker.alter_configs({{"log.partition.expected.bytes", ConfigAlteration::Op::kSet, "1000"}},
                       ConfigChangeSource::kAdminApi);
  EXPECT_EQ(logs.text().find("does not honour cordons"), std::string::npos) << logs.text();
}

TEST_F(BrokerTest, TheSwapLineNamesTheStrategysOptions) {
  Broker broker(write_config(""), probe_);
  LogCapture logs("lds.broker");
  broker.start();
  EXPECT_NE(logs.text().find("[info] Strategy partition 1.0.0 (default options) is active "
                             "(generation 1).\n"),
            std::string::npos)
      << logs.text();
  broker.alter_configs(
      {{"log.directory.select.strategy", ConfigAlteration::Op::kSet, "size"},
       {"log.directory.select.size.keep.free.bytes", ConfigAlteration::Op::kSet, "0"},
       {"log.directory.select.size.balance", ConfigAlteration::Op::kSet, "fill"}},
      ConfigChangeSource::kAdminApi);
  EXPECT_NE(logs.text().find("[info] Strategy size 1.0.0 (balance=fill, keep.free.bytes=0) is "
                             "active (generation 2), replacing partition.\n"),
            std::string::npos)
      << logs.text();
}

TEST_F(BrokerTest, EachChangedKeyIsLoggedWithItsOldAndNewValueAndWhoChangedIt) {
  const fs::path file = write_config("");
  Broker broker(file, probe_);
  broker.start();
  LogCapture logs("lds.broker");
  broker.alter_configs({{"log.partition.expected.bytes", ConfigAlteration::Op::kSet, "1000"},
                        {"log.directory.select.size.balance", ConfigAlteration::Op::kSet, "free"}},
                       ConfigChangeSource::kAdminApi);
  broker.alter_configs({{"cordoned.log.dirs", ConfigAlteration::Op::kSet, "d2"}},
                       ConfigChangeSource::kKafkaIncrementalAlterConfigs);
  broker.replace_dynamic_configs({{"log.partition.expected.bytes", "1000"}},
                                 ConfigChangeSource::kKafkaAlterConfigs);
  std::ofstream(file, std::ios::app) << "log.dir.rate.window.ms = 1000\nlog.level = \"warn\"\n";
  broker.reload_file(ConfigChangeSource::kSighup);
  const std::string d2 = fs::weakly_canonical(tmp_.path() / "d2").string();
  const std::string text = logs.text();
  for (const std::string& line : std::vector<std::string>{
           "[info] log.partition.expected.bytes: 0 → 1000 (admin API)\n",
           "[info] log.directory.select.size.balance: (unset) → free (admin API)\n",
           "[info] cordoned.log.dirs: \"\" → " + d2 + " (Kafka IncrementalAlterConfigs)\n",
           "[info] cordoned.log.dirs: " + d2 + " → \"\" (Kafka AlterConfigs)\n",
           "[info] log.directory.select.size.balance: free → (unset) (Kafka AlterConfigs)\n",
           "[info] log.dir.rate.window.ms: 300000 → 1000 (SIGHUP)\n",
           // Seen although it quietens the log.
           "[info] log.level: info → warn (SIGHUP)\n",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << line << " is missing from\n" << text;
  }
  // Unchanged keys are not logged, and a change that changes nothing logs nothing.
  EXPECT_EQ(text.find("log.partition.expected.bytes: 1000 → 1000"), std::string::npos) << text;
  EXPECT_EQ(text.find("log.segment.bytes:"), std::string::npos) << text;
}

TEST_F(BrokerTest, NoCordonNoteWithTheCordonStrategy) {
  LogCapture logs("lds.broker");
  Broker broker(write_config("cordoned.log.dirs = [\"d1\"]\n"
                             "log.directory.select.strategy = \"cordon\"\n"),
                probe_);
  broker.start();
  EXPECT_EQ(logs.text().find("LDS_CAP_HONORS_CORDON"), std::string::npos) << logs.text();
  EXPECT_NE(broker.logs().create_partition("t", 0).log_dir, (tmp_.path() / "d1").string());
}

TEST_F(BrokerTest, CordoningThroughAlterConfigsSaysAgainThatTheBrokerKeepsTheCordon) {
  Broker broker(write_config(""), probe_);
  broker.start();
  LogCapture logs("lds.broker");
  broker.alter_configs({{"cordoned.log.dirs", ConfigAlteration::Op::kSet, "d2"}},
                       ConfigChangeSource::kAdminApi);
  EXPECT_NE(logs.text().find("does not honour cordons"), std::string::npos);
}

TEST_F(BrokerTest, SwitchingStrategyPublishesANewGeneration) {
  Broker broker(write_config(""), probe_);
  broker.start();
  EXPECT_EQ(broker.strategy_info().name, "partition");
  const uint64_t before = broker.strategy_info().generation;
  broker.alter_configs({{"log.directory.select.strategy", ConfigAlteration::Op::kSet, "size"}},
                       ConfigChangeSource::kAdminApi);
  StrategyInfo info = broker.strategy_info();
  EXPECT_EQ(info.name, "size");
  EXPECT_GT(info.generation, before);
  EXPECT_EQ(info.swaps, 1u);
}

TEST_F(BrokerTest, AFailedSwapKeepsTheOldStrategyAndPersistsNothing) {
  fs::path file = write_config("");
  Broker broker(file, probe_);
  broker.start();
  for (auto change :
       {ConfigAlteration{"log.directory.select.strategy", ConfigAlteration::Op::kSet, "missing"},
        ConfigAlteration{"log.directory.select.size.balance", ConfigAlteration::Op::kSet, "x"}}) {
    std::vector<ConfigAlteration> changes{change};
    if (change.name != "log.directory.select.strategy") {
      changes.push_back({"log.directory.select.strategy", ConfigAlteration::Op::kSet, "size"});
    }
    try {
      broker.alter_configs(changes, ConfigChangeSource::kAdminApi);
      FAIL() << "the change should be refused";
    } catch (const KafkaError& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidConfig);
    }
    EXPECT_EQ(broker.strategy_info().name, "partition");
    EXPECT_EQ(broker.config().strategy, "partition");
  }
  EXPECT_FALSE(fs::exists(fs::path(file.string() + ".dynamic")));
}

TEST_F(BrokerTest, ARefusedSwapUsesUpNoGenerationNumber) {
  Broker broker(write_config(""), probe_);
  broker.start();
  const uint64_t before = broker.strategy_info().generation;
  for (const char* bad : {"missing", "size"}) {
    std::vector<ConfigAlteration> changes{
        {"log.directory.select.strategy", ConfigAlteration::Op::kSet, bad}};
    if (std::string(bad) == "size") {
      changes.push_back({"log.directory.select.size.balance", ConfigAlteration::Op::kSet, "x"});
    }
    EXPECT_THROW(broker.alter_configs(changes, ConfigChangeSource::kAdminApi), KafkaError) << bad;
  }
  broker.alter_configs({{"log.directory.select.strategy", ConfigAlteration::Op::kSet, "size"}},
                       ConfigChangeSource::kAdminApi);
  EXPECT_EQ(broker.strategy_info().generation, before + 1);
}

TEST_F(BrokerTest, AMisspelledStrategyListsTheStrategiesInPluginDir) {
  Broker broker(write_config(""), probe_);
  broker.start();
  try {
    broker.alter_configs({{"log.directory.select.strategy", ConfigAlteration::Op::kSet, "sise"}},
                         ConfigChangeSource::kAdminApi);
    FAIL() << "a strategy that is not in plugin.dir was accepted";
  } catch (const KafkaError& e) {
    EXPECT_NE(std::string(e.what()).find("; it holds cordon, partition, size)."), std::string::npos)
        << e.what();
  }
}

TEST_F(BrokerTest, AnInvalidCordonEntryIsRefusedWithKafkasMessage) {
  Broker broker(write_config(""), probe_);
  broker.start();
  try {
    broker.alter_configs({{"cordoned.log.dirs", ConfigAlteration::Op::kSet, "/elsewhere"}},
                         ConfigChangeSource::kAdminApi);
    FAIL();
  } catch (const KafkaError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidConfig);
    EXPECT_EQ(std::string(e.what()),
              "Invalid value [/elsewhere] for configuration cordoned.log.dirs: Invalid entries in "
              "cordoned.log.dirs: [/elsewhere]. All cordoned log dirs must be entries of log.dirs "
              "or log.dir.");
  }
  for (const auto& d : broker.logs().describe()) EXPECT_FALSE(d.cordoned);
}

TEST_F(BrokerTest, ReloadAppliesAStrategyChangedInTheFile) {
  fs::path file = write_config("");
  Broker broker(file, probe_);
  broker.start();
  std::ofstream(file, std::ios::app) << "log.directory.select.strategy = \"cordon\"\n"
                                     << "cordoned.log.dirs = \"*\"\n";
  broker.reload_file(ConfigChangeSource::kSighup);
  EXPECT_EQ(broker.strategy_info().name, "cordon");
  EXPECT_THROW(broker.logs().create_partition("t", 0), StorageError);
}

TEST_F(BrokerTest, StartupWithAMissingStrategyFails) {
  Broker broker(write_config("log.directory.select.strategy = \"nosuch\"\n"), probe_);
  EXPECT_THROW(broker.start(), PluginError);
}

TEST_F(BrokerTest, StartupRefusesATypoInAnInactiveStrategysOptionsNamingFileKeyAndReason) {
  const fs::path file = write_config("log.directory.select.size.kep.free.bytes = \"1\"\n");
  Broker broker(file, probe_);
  try {
    broker.start();
    FAIL() << "a typo in the options of size (not active) was accepted";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(fs::weakly_canonical(file).string() + ": log.directory.select.size.* ", 0),
              0u)
        << what;
    EXPECT_NE(what.find("unknown option 'kep.free.bytes' for strategy size"), std::string::npos)
        << what;
  }
}

TEST_F(BrokerTest, StartupRefusesOptionsOfAStrategyThatIsNotInPluginDir) {
  Broker broker(write_config("log.directory.select.sise.keep.free.bytes = \"1\"\n"), probe_);
  try {
    broker.start();
    FAIL() << "options of a strategy that plugin.dir does not hold were accepted";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("log.directory.select.sise.* "), std::string::npos) << what;
    EXPECT_NE(what.find("; it holds cordon, partition, size)."), std::string::npos) << what;
  }
}

TEST_F(BrokerTest, GoodOptionsOfAnInactiveStrategyAreCheckedWithoutUsingAGeneration) {
  Broker broker(write_config("log.directory.select.size.keep.free.bytes = \"5\"\n"), probe_);
  broker.start();
  EXPECT_EQ(broker.strategy_info().name, "partition");
  EXPECT_EQ(broker.strategy_info().generation, 1u);
  broker.alter_configs({{"log.directory.select.strategy", ConfigAlteration::Op::kSet, "size"}},
                       ConfigChangeSource::kAdminApi);
  EXPECT_EQ(broker.strategy_info().generation, 2u);
}

TEST_F(BrokerTest, SighupWithATypoInAnInactiveStrategysOptionsIsRefusedAndTheConfigKept) {
  const fs::path file = write_config("");
  Broker broker(file, probe_);
  broker.start();
  const BrokerConfig before = broker.config();
  const uint64_t generation = broker.strategy_info().generation;
  std::ofstream(file, std::ios::app) << "log.level = \"debug\"\n"
                                     << "log.directory.select.cordon.ordr = \"size\"\n";
  LogCapture logs("lds.broker");
  broker.reload_file(ConfigChangeSource::kSighup);
  EXPECT_NE(logs.text().find("Reload of " + before.file.string() + " refused, nothing changed: " +
                             before.file.string() + ": log.directory.select.cordon.* "),
            std::string::npos)
      << logs.text();
  EXPECT_NE(logs.text().find("unknown option 'ordr' for strategy cordon"), std::string::npos)
      << logs.text();
  EXPECT_EQ(broker.config(), before) << "the refused reload changed the running config";
  EXPECT_EQ(broker.strategy_info().generation, generation);
}

TEST_F(BrokerTest, StartupAndReloadLogEachFileValueADynamicValueOverrides) {
  const fs::path file = write_config("log.partition.expected.bytes = 100\n");
  {
    Broker broker(file, probe_);
    broker.start();
    broker.alter_configs({{"log.partition.expected.bytes", ConfigAlteration::Op::kSet, "200"}},
                         ConfigChangeSource::kAdminApi);
    LogCapture logs("lds.broker");
    broker.reload_file(ConfigChangeSource::kSighup);
    const std::string canonical = broker.config().file.string();
    EXPECT_NE(logs.text().find("log.partition.expected.bytes = \"100\" in " + canonical +
                               " is overridden by the dynamic value \"200\" kept in " + canonical +
                               ".dynamic."),
              std::string::npos)
        << logs.text();
    EXPECT_EQ(logs.text().find("log.level = "), std::string::npos)
        << "a key the file does not set was named: " << logs.text();
  }
  LogCapture logs("lds.broker");
  Broker restarted(file, probe_);
  restarted.start();
  EXPECT_NE(logs.text().find("log.partition.expected.bytes = \"100\" in "), std::string::npos)
      << logs.text();
}

}  // namespace
}  // namespace lds
