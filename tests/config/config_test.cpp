// config_test.cpp: ConfigStore: reading broker.toml, error messages, dynamic overrides, SIGHUP
// rereads.
#include "config/config.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using lds::ConfigAlteration;
using lds::ConfigError;

// Kafka's text: DynamicLogConfig's validation of cordoned.log.dirs (KIP-1066) in ConfigException's
// frame, as server/src/test/java/org/apache/kafka/server/config/DynamicLogConfigTest.java
// (testValidateCordonedLogDirsReportsAllInvalidEntries) quotes it: "Invalid value [/tmp/bad-1,
// /tmp/bad-2] for configuration cordoned.log.dirs: Invalid entries in cordoned.log.dirs:
// [/tmp/bad-1, /tmp/bad-2]. All cordoned log dirs must be entries of log.dirs or log.dir."
constexpr const char* kCordonTail =
    ". All cordoned log dirs must be entries of log.dirs or log.dir.";

// The cordon error for the list `value` (as written) whose entries `invalid` are not log dirs.
std::string cordon_error(const std::string& value, const std::string& invalid) {
  return "Invalid value [" + value +
         "] for configuration cordoned.log.dirs: Invalid entries in "
         "cordoned.log.dirs: [" +
         invalid + "]" + kCordonTail;
}

// Each test gets its own temp folder, removed afterwards.
class ConfigStore : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "lds-config-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = lds::canonical_path("/", pattern);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  fs::path write(const fs::path& relative, const std::string& text) {
    fs::path file = dir_ / relative;
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
    return file;
  }

  // The message of the ConfigError that `fn` throws; fails the test when it throws nothing.
  template <typename Fn>
  static std::string error_of(Fn&& fn) {
    try {
      fn();
    } catch (const ConfigError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no ConfigError thrown";
    return "";
  }

  static const lds::DescribedConfig* row(const std::vector<lds::DescribedConfig>& rows,
                                         const std::string& name) {
    for (const auto& r : rows) {
      if (r.name == name) return &r;
    }
    return nullptr;
  }

  static ConfigAlteration set(const std::string& name, const std::string& value) {
    return {name, ConfigAlteration::Op::kSet, value};
  }
  static ConfigAlteration remove(const std::string& name) {
    return {name, ConfigAlteration::Op::kDelete, ""};
  }

  std::set<std::string> files_in_dir() const {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) names.insert(entry.path().filename());
    return names;
  }

  fs::path dir_;
};

struct BadFile {
  const char* content;
  const char* position;  // "line:column", or "" when the error has no position
  std::string after;     // what follows the position: usually "<key>: <reason>"
};

// Each case is one broker.toml with one mistake; the message must start with file:line:column.
const BadFile kBadFiles[] = {
    {"log.dirs = [\"a\"]\nbroker.id = \n", "2:13", "broker.id: invalid TOML: "},
    {"log.dirs = [\"a\"]\nlog.dirz = 1\n", "2:1", "log.dirz: unknown config key."},
    {"log.dirs = [\"a\"]\nbroker.id = \"1\"\n", "2:1",
     "broker.id: must be an integer, not a string."},
    {"log.dirs = []\n", "1:1", "log.dirs: must not be empty."},
    {"log.dirs = \" , \"\n", "1:1", "log.dirs: must not be empty."},
    {"log.dirs = [\"a\", \"\"]\n", "1:18", "log.dirs: entries must not be empty strings."},
    {"log.dirs = [\"a\", 5]\n", "1:18", "log.dirs: entries must be strings, not an integer."},
    {"log.dirs = 5\n", "1:1",
     "log.dirs: must be an array of strings or a comma-separated string, not an integer."},
    {"log.dirs = [\"a\", \"./a/\"]\n", "1:18", "log.dirs: \"./a/\" is the same directory as \"a\""},
    {"log.dirs = [\"a\", \"a/b\"]\n", "1:18",
     "log.dirs: \"a/b\" is inside \"a\"; log directories must not nest."},
    {"log.dirs = [\"a/b\",\n            \"a\"]\n", "2:13",
     "log.dirs: \"a\" contains \"a/b\"; log directories must not nest."},
    {"log.dirs = [\"a\"]\ncordoned.log.dirs = [\"a\", \"c\"]\n", "2:27", cordon_error("a, c", "c")},
    {"log.dirs = \"a,b\"\ncordoned.log.dirs = \"b, ./x\"\n", "2:1", cordon_error("b, ./x", "./x")},
    {"log.dirs = [\"a\"]\ncordoned.log.dirs = [\"y\", \"a\", \"z\"]\n", "2:22",
     cordon_error("y, a, z", "y, z")},
    {"log.dirs = [\"a\"]\ncordoned.log.dirs = [\"*\", \"a\"]\n", "2:22",
     "cordoned.log.dirs: \"*\" must be the only entry."},
    {"log.dirs = [\"a\"]\nbroker.id = -1\n", "2:1",
     "broker.id: must be an integer from 0 to 2147483647, not \"-1\"."},
    {"log.dirs = [\"a\"]\nbroker.id = 3000000000\n", "2:1",
     "broker.id: must be an integer from 0 to 2147483647, not \"3000000000\"."},
    {"log.dirs = [\"a\"]\nlog.directory.select.strategy = \"../x\"\n", "2:1",
     "log.directory.select.strategy: must be a strategy name matching [a-z0-9_]+, not \"../x\"."},
    {"log.dirs = [\"a\"]\nlog.directory.select.strategy = \"Size\"\n", "2:1",
     "log.directory.select.strategy: must be a strategy name matching [a-z0-9_]+, not \"Size\"."},
    {"log.dirs = [\"a\"]\nlog.level = \"loud\"\n", "2:1",
     "log.level: must be one of trace, debug, info, warn, error, off, not \"loud\"."},
    {"log.dirs = [\"a\"]\nlog.level = 3\n", "2:1", "log.level: must be a string, not an integer."},
    {"log.dirs = [\"a\"]\nlog.partition.expected.bytes = -5\n", "2:1",
     "log.partition.expected.bytes: must be an integer >= 0, not \"-5\"."},
    {"log.dirs = [\"a\"]\nlog.partition.expected.bytes = 1.5\n", "2:1",
     "log.partition.expected.bytes: must be an integer, not a float."},
    {"log.dirs = [\"a\"]\nreplica.alter.log.dirs.io.max.bytes.per.second = -1\n", "2:1",
     // Kafka's ConfigException for Range.atLeast(0) (apache/kafka
     // clients/src/main/java/org/apache/kafka/common/config/ConfigDef.java).
     "Invalid value -1 for configuration replica.alter.log.dirs.io.max.bytes.per.second: Value "
     "must be at least 0."},
    {"log.dirs = [\"a\"]\ncluster.id = \"abc\"\n", "2:1",
     "cluster.id: \"abc\" is not a Kafka Uuid (it decodes to 2 bytes, not 16); use 22 characters "
     "of URL-safe base64, as `kafka-storage.sh random-uuid` prints, or leave it empty."},
    {"log.dirs = [\"a\"]\nnum.replica.alter.log.dirs.threads = 0\n", "2:1",
     "num.replica.alter.log.dirs.threads: must be an integer from 1 to 2147483647, not \"0\"."},
    {"log.dirs = [\"a\"]\nplugin.never.unload = \"yes\"\n", "2:1",
     "plugin.never.unload: must be true or false, not a string."},
    {"log.dirs = [\"a\"]\nplugin.dir = \"\"\n", "2:1", "plugin.dir: must not be empty."},
    {"log.dirs = [\"a\"]\nlog.directory.select.size.balance = [\"fill\"]\n", "2:1",
     "log.directory.select.size.balance: must be a string, integer, boolean or float, not an "
     "array."},
    {"log.dirs = [\"a\"]\nlog.directory.select.Size.balance = \"fill\"\n", "2:1",
     "log.directory.select.Size.balance: strategy name \"Size\" must match [a-z0-9_]+."},
    {"log.dirs = [\"a\"]\nlog.directory.select.size = 1\n", "2:1",
     "log.directory.select.size: unknown config key."},
    {"\"log.dirs\" = [\"a\"]\nlog.dirs = [\"b\"]\n", "2:1",
     "log.dirs: is set twice (first at line 1)."},
    {"[log]\ndirs = []\n", "2:1", "log.dirs: must not be empty."},
    {"log.dirs = [\"a\"]\n  log . \"level\" = \"x\"\n", "2:3",
     "log.level: must be one of trace, debug, info, warn, error, off, not \"x\"."},
    {"\"log\".'dirs' = []\n", "1:1", "log.dirs: must not be empty."},
    {"log = { dirs = [] }\n", "1:9", "log.dirs: must not be empty."},
    {"log = { level = \"\u00e9\", dirs = [] }\n", "1:22", "log.dirs: must not be empty."},
    {"log.dirs = [\"a\"]\n\"\u00e9\" . x = 1\n", "2:1", "\u00e9.x: unknown config key."},
    {"log.dirs = [\"a\"]\nlog.dirs = [\"b\"]\n", "2:12", "log.dirs: invalid TOML: "},
    {"log.dirs = [\"a\"]\n[foo]\n", "2:2", "foo: unknown config key."},
    {"broker.id = 1\n", "", "log.dirs: is required."},
};

TEST_F(ConfigStore, RejectsEachBadFileNamingPositionAndKey) {
  int index = 0;
  for (const BadFile& bad : kBadFiles) {
    SCOPED_TRACE(bad.content);
    fs::path file = write("case" + std::to_string(index++) + "/broker.toml", bad.content);
    // Appended: GCC 12 at -O3 reports a false -Wrestrict on `":" + std::string(bad.position)`.
    std::string prefix = file.string();
    if (*bad.position) prefix.append(1, ':').append(bad.position);
    prefix += ": ";
    std::string message = error_of([&] { lds::ConfigStore store(file); });
    EXPECT_EQ(message.substr(0, prefix.size() + bad.after.size()), prefix + bad.after) << message;
    EXPECT_EQ(message.back(), '.') << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST_F(ConfigStore, RejectsCordonedEntryOutsideLogDirs) {
  fs::path file =
      write("broker.toml", "log.dirs = [\"d1\", \"d2\"]\ncordoned.log.dirs = [\"d3\"]\n");
  EXPECT_EQ(error_of([&] { lds::ConfigStore store(file); }),
            file.string() + ":2:22: " + cordon_error("d3", "d3"));
}

TEST_F(ConfigStore, NamesMissingFile) {
  fs::path file = dir_ / "nope.toml";
  EXPECT_EQ(error_of([&] { lds::ConfigStore store(file); }),
            file.string() + ": cannot read the config file: No such file or directory.");
}

TEST_F(ConfigStore, NamesUnreadableFile) {
  fs::create_directory(dir_ / "broker.toml");
  EXPECT_EQ(error_of([&] { lds::ConfigStore store(dir_ / "broker.toml"); }),
            (dir_ / "broker.toml").string() + ": cannot read the config file: Is a directory.");
}

TEST_F(ConfigStore, NamesCorruptDynamicFile) {
  fs::path file = write("broker.toml", "log.dirs = [\"a\"]\n");
  fs::path dynamic = write("broker.toml.dynamic", "\"log.level\" = \n");
  std::string message = error_of([&] { lds::ConfigStore store(file); });
  EXPECT_EQ(message.rfind(dynamic.string() + ":1:15: log.level: invalid TOML: ", 0), 0u) << message;
  // Entries that parse but do not validate are logged and left out instead: see
  // dynamic_config_startup_test.cpp.
}

TEST_F(ConfigStore, ResolvesRelativePathsAgainstConfigFolder) {
  fs::path file =
      write("conf/broker.toml", "log.dirs = [\"../data/d1\", \"d2\", \"" + (dir_ / "abs").string() +
                                    "\"]\nplugin.dir = \"plugins\"\n");
  lds::ConfigStore store(file);
  const lds::BrokerConfig& c = store.current();
  EXPECT_EQ(c.file, dir_ / "conf/broker.toml");
  EXPECT_EQ(c.log_dirs, (std::vector<fs::path>{dir_ / "data/d1", dir_ / "conf/d2", dir_ / "abs"}));
  EXPECT_EQ(c.plugin_dir, dir_ / "conf/plugins");
  EXPECT_EQ(c.admin_socket, dir_ / "conf/lds-admin.sock");
  EXPECT_EQ(store.dynamic_file(), dir_ / "conf/broker.toml.dynamic");
}

TEST_F(ConfigStore, CanonicalisesPaths) {
  EXPECT_EQ(lds::canonical_path(dir_, "a/../b"), dir_ / "b");
  EXPECT_EQ(lds::canonical_path(dir_, "b/"), dir_ / "b");
  EXPECT_EQ(lds::canonical_path(dir_, "./b//"), dir_ / "b");
  EXPECT_EQ(lds::canonical_path(dir_, "/"), fs::path("/"));
  fs::create_directory(dir_ / "real");
  fs::create_directory_symlink(dir_ / "real", dir_ / "link");
  EXPECT_EQ(lds::canonical_path(dir_, "link/x/"), dir_ / "real/x");

  fs::path file = write("broker.toml",
                        "log.dirs = [\"a/../b\", \"c/\", \"link\"]\n"
                        "cordoned.log.dirs = [\"./b/\", \"real\"]\n");
  lds::ConfigStore store(file);
  EXPECT_EQ(store.current().log_dirs,
            (std::vector<fs::path>{dir_ / "b", dir_ / "c", dir_ / "real"}));
  EXPECT_TRUE(store.current().is_cordoned(dir_ / "b"));
  EXPECT_TRUE(store.current().is_cordoned(dir_ / "real"));
  EXPECT_FALSE(store.current().is_cordoned(dir_ / "c"));
}

TEST_F(ConfigStore, RejectsDirectoriesThatAreTheSameThroughASymlink) {
  fs::create_directory(dir_ / "real");
  fs::create_directory_symlink(dir_ / "real", dir_ / "link");
  fs::path file = write("broker.toml", "log.dirs = [\"real\", \"link\"]\n");
  EXPECT_EQ(error_of([&] { lds::ConfigStore store(file); }),
            file.string() + ":1:21: log.dirs: \"link\" is the same directory as \"real\" (" +
                (dir_ / "real").string() + ").");
}

TEST_F(ConfigStore, AppliesDefaults) {
  fs::path file = write("broker.toml", "log.dirs = \"a, b\"\n");
  lds::ConfigStore store(file);
  const lds::BrokerConfig& c = store.current();
  EXPECT_EQ(c.log_dirs, (std::vector<fs::path>{dir_ / "a", dir_ / "b"}));
  EXPECT_EQ(c.broker_id, 0);
  EXPECT_EQ(c.cluster_id, "");
  EXPECT_EQ(c.strategy, "partition");
  EXPECT_EQ(c.log_level, "info");
  EXPECT_EQ(c.partition_expected_bytes, 0u);
  // Kafka's QuotaConfig.QUOTA_BYTES_PER_SECOND_DEFAULT, Long.MAX_VALUE: no throttle.
  EXPECT_EQ(c.alter_log_dirs_bytes_per_second, 9223372036854775807u);
  EXPECT_EQ(row(store.describe(), "replica.alter.log.dirs.io.max.bytes.per.second")->value,
            "9223372036854775807");
  EXPECT_EQ(c.mover_threads, 1);
  EXPECT_FALSE(c.never_unload);
  EXPECT_FALSE(c.cordon_all);
  EXPECT_TRUE(c.cordoned.empty());
  EXPECT_TRUE(c.strategy_options.empty());
  fs::path exe = fs::read_symlink("/proc/self/exe");
  EXPECT_EQ(c.plugin_dir, lds::canonical_path(exe.parent_path(), LDS_DEFAULT_PLUGIN_DIR_RELATIVE));
  for (const auto& r : store.describe()) {
    if (r.name != "log.dirs") {
      EXPECT_EQ(r.source, "DEFAULT") << r.name;
    }
  }
}

TEST_F(ConfigStore, ReadsEveryKey) {
  fs::path file = write("broker.toml", R"(broker.id = 7
log.dirs = ["d1", "d2"]
plugin.dir = "/opt/plugins/"
admin.socket = "run/admin.sock"
num.replica.alter.log.dirs.threads = 3
cluster.id = "MkU3OEVBNTcwNTJENDM2Qk"
plugin.never.unload = true
cordoned.log.dirs = "d2"
log.partition.expected.bytes = 1048576
log.level = "debug"
replica.alter.log.dirs.io.max.bytes.per.second = 5000

[log.directory.select]
strategy = "size"
size.balance = "free"
size.tie.bytes = 1024
size.ratio = 0.5
partition.spread.topic = true
)");
  lds::ConfigStore store(file);
  const lds::BrokerConfig& c = store.current();
  EXPECT_EQ(c.broker_id, 7);
  EXPECT_EQ(c.plugin_dir, fs::path("/opt/plugins"));
  EXPECT_EQ(c.admin_socket, dir_ / "run/admin.sock");
  EXPECT_EQ(c.mover_threads, 3);
  EXPECT_TRUE(c.never_unload);
  EXPECT_EQ(c.cordoned, std::vector<fs::path>{dir_ / "d2"});
  EXPECT_TRUE(c.is_cordoned(dir_ / "d2"));
  EXPECT_FALSE(c.is_cordoned(dir_ / "d1"));
  EXPECT_EQ(c.partition_expected_bytes, 1048576u);
  EXPECT_EQ(c.log_level, "debug");
  EXPECT_EQ(c.alter_log_dirs_bytes_per_second, 5000u);
  EXPECT_EQ(c.cluster_id, "MkU3OEVBNTcwNTJENDM2Qk");
  EXPECT_EQ(c.strategy, "size");
  using Options = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(c.options_of("size"),
            (Options{{"balance", "free"}, {"ratio", "0.5"}, {"tie.bytes", "1024"}}));
  EXPECT_EQ(c.options_of("partition"), (Options{{"spread.topic", "true"}}));
  EXPECT_TRUE(c.options_of("cordon").empty());
  const auto rows = store.describe();
  ASSERT_NE(row(rows, "log.directory.select.size.tie.bytes"), nullptr);
  EXPECT_EQ(row(rows, "log.directory.select.size.tie.bytes")->value, "1024");
  EXPECT_EQ(row(rows, "log.directory.select.size.tie.bytes")->source, "STATIC");
  EXPECT_TRUE(row(rows, "log.directory.select.size.tie.bytes")->dynamic);
  EXPECT_EQ(row(rows, "log.dirs")->value, (dir_ / "d1").string() + "," + (dir_ / "d2").string());
  EXPECT_FALSE(row(rows, "log.dirs")->dynamic);
}

TEST_F(ConfigStore, CordonStarCordonsEveryDir) {
  fs::path file = write("broker.toml", "log.dirs = [\"a\", \"b\"]\ncordoned.log.dirs = \"*\"\n");
  lds::ConfigStore store(file);
  EXPECT_TRUE(store.current().cordon_all);
  EXPECT_TRUE(store.current().is_cordoned(dir_ / "a"));
  EXPECT_TRUE(store.current().is_cordoned(dir_ / "b"));
  EXPECT_EQ(row(store.describe(), "cordoned.log.dirs")->value, "*");

  store.commit({set("cordoned.log.dirs", "a")});
  EXPECT_FALSE(store.current().cordon_all);
  EXPECT_TRUE(store.current().is_cordoned(dir_ / "a"));
  EXPECT_FALSE(store.current().is_cordoned(dir_ / "b"));

  store.commit({set("cordoned.log.dirs", "")});
  EXPECT_FALSE(store.current().is_cordoned(dir_ / "a"));
  EXPECT_EQ(row(store.describe(), "cordoned.log.dirs")->source, "DYNAMIC");
}

TEST_F(ConfigStore, DescribeShowsDynamicOverStaticOverDefault) {
  fs::path file = write("broker.toml",
                        "log.dirs = [\"a\", \"b\"]\nlog.level = \"warn\"\n"
                        "log.partition.expected.bytes = 100\n");
  lds::ConfigStore store(file);
  store.commit({set("log.partition.expected.bytes", "200")});
  const auto rows = store.describe();
  EXPECT_EQ(row(rows, "log.partition.expected.bytes")->value, "200");
  EXPECT_EQ(row(rows, "log.partition.expected.bytes")->source, "DYNAMIC");
  EXPECT_TRUE(row(rows, "log.partition.expected.bytes")->dynamic);
  EXPECT_EQ(row(rows, "log.level")->value, "warn");
  EXPECT_EQ(row(rows, "log.level")->source, "STATIC");
  EXPECT_EQ(row(rows, "log.directory.select.strategy")->value, "partition");
  EXPECT_EQ(row(rows, "log.directory.select.strategy")->source, "DEFAULT");
  EXPECT_EQ(row(rows, "broker.id")->source, "DEFAULT");
  EXPECT_FALSE(row(rows, "broker.id")->dynamic);
  EXPECT_EQ(store.current().partition_expected_bytes, 200u);
}

TEST_F(ConfigStore, CommitPersistsForANewStore) {
  fs::path file = write("broker.toml", "log.dirs = [\"a\", \"b\"]\n");
  {
    lds::ConfigStore store(file);
    store.commit({set("cordoned.log.dirs", "b"), set("log.level", "debug"),
                  set("log.directory.select.strategy", "cordon"),
                  set("log.directory.select.cordon.order", "size"),
                  set("replica.alter.log.dirs.io.max.bytes.per.second", "1000")});
  }
  lds::ConfigStore again(file);
  const lds::BrokerConfig& c = again.current();
  EXPECT_EQ(c.cordoned, std::vector<fs::path>{dir_ / "b"});
  EXPECT_EQ(c.log_level, "debug");
  EXPECT_EQ(c.strategy, "cordon");
  EXPECT_EQ(c.options_of("cordon"),
            (std::vector<std::pair<std::string, std::string>>{{"order", "size"}}));
  EXPECT_EQ(c.alter_log_dirs_bytes_per_second, 1000u);
  EXPECT_EQ(row(again.describe(), "log.directory.select.cordon.order")->source, "DYNAMIC");
}

TEST_F(ConfigStore, PreviewWithOneBadChangeChangesNothing) {
  fs::path file = write("broker.toml", "log.dirs = [\"a\", \"b\"]\n");
  lds::ConfigStore store(file);
  const lds::BrokerConfig before = store.current();
  std::vector<ConfigAlteration> changes = {set("log.level", "debug"),
                                           set("cordoned.log.dirs", "a, zz"),
                                           set("log.directory.select.strategy", "size")};
  const std::string expected = cordon_error("a, zz", "zz");
  EXPECT_EQ(error_of([&] { (void)store.preview(changes); }), expected);
  EXPECT_EQ(error_of([&] { store.commit(changes); }), expected);
  EXPECT_EQ(store.current(), before);
  EXPECT_FALSE(fs::exists(store.dynamic_file()));

  lds::BrokerConfig previewed = store.preview({set("log.level", "debug")});
  EXPECT_EQ(previewed.log_level, "debug");
  EXPECT_EQ(store.current().log_level, "info");
}

TEST_F(ConfigStore, RejectsBadAlterations) {
  fs::path file = write("broker.toml", "log.dirs = [\"a\"]\n");
  lds::ConfigStore store(file);
  auto message = [&](std::vector<ConfigAlteration> changes) {
    return error_of([&] { (void)store.preview(changes); });
  };
  EXPECT_EQ(message({set("log.dirs", "a,b")}),
            "log.dirs: cannot be altered dynamically; it is a static config (edit the file and "
            "restart).");
  EXPECT_EQ(message({remove("broker.id")}),
            "broker.id: cannot be altered dynamically; it is a static config (edit the file and "
            "restart).");
  EXPECT_EQ(message({set("log.levle", "debug")}), "log.levle: unknown config key.");
  // Deleting a key this broker does not know changes nothing, as Kafka deletes a config never
  // set (kafka-reassign-partitions --verify deletes the replication throttles).
  EXPECT_EQ(store.preview({remove("follower.replication.throttled.rate")}).log_level, "info");
  // Committed, such a delete writes no dynamic file: it changes nothing.
  store.commit({remove("leader.replication.throttled.rate"), remove("log.level")});
  EXPECT_FALSE(fs::exists(store.dynamic_file()));
  EXPECT_EQ(message({set("log.partition.expected.bytes", "-1")}),
            "log.partition.expected.bytes: must be an integer >= 0, not \"-1\".");
  EXPECT_EQ(message({set("log.partition.expected.bytes", "12kb")}),
            "log.partition.expected.bytes: must be an integer >= 0, not \"12kb\".");
  EXPECT_EQ(message({set("replica.alter.log.dirs.io.max.bytes.per.second", "-5")}),
            "Invalid value -5 for configuration replica.alter.log.dirs.io.max.bytes.per.second: "
            "Value must be at least 0.");
  EXPECT_EQ(message({set("replica.alter.log.dirs.io.max.bytes.per.second", "fast")}),
            "Invalid value fast for configuration replica.alter.log.dirs.io.max.bytes.per.second: "
            "Not a number of type LONG.");
  EXPECT_EQ(message({set("replica.alter.log.dirs.io.max.bytes.per.second", "9223372036854775808")}),
            "Invalid value 9223372036854775808 for configuration "
            "replica.alter.log.dirs.io.max.bytes.per.second: Not a number of type LONG.");
  EXPECT_EQ(store.preview({set("replica.alter.log.dirs.io.max.bytes.per.second", "0")})
                .alter_log_dirs_bytes_per_second,
            0u);
  EXPECT_EQ(message({set("log.level", "TRACE")}),
            "log.level: must be one of trace, debug, info, warn, error, off, not \"TRACE\".");
  EXPECT_EQ(message({set("log.directory.select.strategy", "../x")}),
            "log.directory.select.strategy: must be a strategy name matching [a-z0-9_]+, not "
            "\"../x\".");
  EXPECT_EQ(message({set("log.directory.select.a-b.x", "1")}),
            "log.directory.select.a-b.x: strategy name \"a-b\" must match [a-z0-9_]+.");
  EXPECT_EQ(message({set("cordoned.log.dirs", "*,a")}),
            "cordoned.log.dirs: \"*\" must be the only entry.");
  EXPECT_EQ(message({set("log.level", "debug"), set("log.level", "warn")}),
            "log.level: appears more than once in one request.");
  EXPECT_FALSE(fs::exists(store.dynamic_file()));
}

TEST_F(ConfigStore, DeleteRevertsToStaticThenDefault) {
  fs::path file = write("broker.toml", "log.dirs = [\"a\"]\nlog.level = \"warn\"\n");
  lds::ConfigStore store(file);
  store.commit({set("log.level", "trace"), set("log.directory.select.strategy", "size")});
  EXPECT_EQ(store.current().log_level, "trace");
  EXPECT_EQ(row(store.describe(), "log.level")->source, "DYNAMIC");

  store.commit({remove("log.level"), remove("log.directory.select.strategy"),
                remove("log.partition.expected.bytes")});
  EXPECT_EQ(store.current().log_level, "warn");
  EXPECT_EQ(row(store.describe(), "log.level")->source, "STATIC");
  EXPECT_EQ(store.current().strategy, "partition");
  EXPECT_EQ(row(store.describe(), "log.directory.select.strategy")->source, "DEFAULT");

  lds::ConfigStore again(file);
  EXPECT_EQ(again.current().log_level, "warn");
  EXPECT_EQ(again.current().strategy, "partition");
}

TEST_F(ConfigStore, RereadReportsStaticChangesAndKeepsTheirValues) {
  fs::path file = write("broker.toml",
                        "broker.id = 1\nlog.dirs = [\"a\", \"b\"]\n"
                        "log.level = \"warn\"\ncordoned.log.dirs = \"b\"\n");
  lds::ConfigStore store(file);
  store.commit({set("log.partition.expected.bytes", "42")});

  write("broker.toml",
        "broker.id = 2\nlog.dirs = [\"./a/\", \"b\", \"c\"]\nlog.level = \"error\"\n"
        "log.partition.expected.bytes = 7\n");
  std::vector<std::string> changed;
  lds::BrokerConfig next = store.reread(&changed);
  EXPECT_EQ(changed, (std::vector<std::string>{"broker.id", "log.dirs"}));
  EXPECT_EQ(next.broker_id, 1);
  EXPECT_EQ(next.log_dirs, (std::vector<fs::path>{dir_ / "a", dir_ / "b"}));
  EXPECT_EQ(next.log_level, "error");
  EXPECT_TRUE(next.cordoned.empty());
  EXPECT_EQ(next.partition_expected_bytes, 42u);  // the dynamic layer still wins
  EXPECT_EQ(store.current().log_level, "warn");   // not adopted yet

  store.adopt(next);
  EXPECT_EQ(store.current(), next);
  EXPECT_EQ(row(store.describe(), "log.level")->value, "error");
  EXPECT_EQ(row(store.describe(), "broker.id")->value, "1");

  // An unchanged file reports nothing; a broken one throws and leaves the store as it was.
  EXPECT_EQ(store.reread(&changed), next);
  EXPECT_EQ(changed, (std::vector<std::string>{"broker.id", "log.dirs"}));
  write("broker.toml", "broker.id = 1\nlog.dirs = [\"a\", \"b\"]\nlog.level = \"warn\"\n");
  EXPECT_EQ(store.reread(&changed).log_level, "warn");
  EXPECT_TRUE(changed.empty());
  write("broker.toml", "log.dirs = [\"a\"]\nlog.level = \"nope\"\n");
  EXPECT_EQ(
      error_of([&] { (void)store.reread(&changed); }),
      file.string() +
          ":2:1: log.level: must be one of trace, debug, info, warn, error, off, not \"nope\".");
  EXPECT_EQ(store.current(), next);
}

TEST_F(ConfigStore, AdoptRefusesAConfigNotFromReread) {
  fs::path file = write("broker.toml", "log.dirs = [\"a\"]\n");
  lds::ConfigStore store(file);
  lds::BrokerConfig other = store.current();
  other.log_level = "off";
  EXPECT_THROW(store.adopt(other), std::logic_error);
  lds::BrokerConfig next = store.reread(nullptr);
  store.commit({set("log.level", "debug")});
  EXPECT_THROW(store.adopt(next), std::logic_error);  // the dynamic layer moved on
  EXPECT_EQ(store.current().log_level, "debug");
}

TEST_F(ConfigStore, WritesDynamicFileAtomicallyWithFlatQuotedKeys) {
  fs::path file = write("broker.toml", "log.dirs = [\"a\", \"b\"]\n");
  lds::ConfigStore store(file);
  store.commit({set("log.level", "debug")});
  store.commit({set("cordoned.log.dirs", "a,b"), set("log.directory.select.size.tag", "x\"y\\z")});
  store.commit({remove("log.level")});
  EXPECT_EQ(files_in_dir(), (std::set<std::string>{"broker.toml", "broker.toml.dynamic"}));

  std::ifstream in(store.dynamic_file());
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("\"cordoned.log.dirs\" = \"a,b\"\n"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("\"log.directory.select.size.tag\" = \"x\\\"y\\\\z\"\n"),
            std::string::npos)
      << text.str();
  EXPECT_EQ(text.str().find("log.level"), std::string::npos) << text.str();
  lds::ConfigStore again(file);
  EXPECT_EQ(again.current().options_of("size"),
            (std::vector<std::pair<std::string, std::string>>{{"tag", "x\"y\\z"}}));
}

TEST_F(ConfigStore, FailedWriteChangesNothingAndLeavesNoTempFile) {
  fs::path file = write("broker.toml", "log.dirs = [\"a\"]\n");
  lds::ConfigStore store(file);
  // A non-empty folder where the dynamic file goes makes the rename fail.
  write("broker.toml.dynamic/keep", "");
  std::string message = error_of([&] { store.commit({set("log.level", "debug")}); });
  EXPECT_EQ(
      message.rfind(store.dynamic_file().string() + ": cannot write the dynamic config file: ", 0),
      0u)
      << message;
  EXPECT_EQ(store.current().log_level, "info");
  EXPECT_EQ(row(store.describe(), "log.level")->source, "DEFAULT");
  EXPECT_EQ(files_in_dir(), (std::set<std::string>{"broker.toml", "broker.toml.dynamic"}));
}

TEST_F(ConfigStore, AdminSocketIsFoundWhateverElseTheFileGetsWrong) {
  // A key the broker would refuse, and then a TOML syntax error: the client still finds its socket.
  fs::path file = write("a/broker.toml",
                        "log.dirz = [\"d1\"]\n"
                        "admin.socket = \"run/admin.sock\"\n"
                        "log.directory.select.strategy = size\n");
  EXPECT_EQ(lds::admin_socket_of_file(file), dir_ / "a/run/admin.sock");
  // Written under its table, in a file that is valid TOML.
  file = write("b/broker.toml", "log.dirz = 1\n[admin]\nsocket = '/run/lds/admin.sock'\n");
  EXPECT_EQ(lds::admin_socket_of_file(file), fs::path("/run/lds/admin.sock"));
  // Under its table, in a file that is not.
  file = write("c/broker.toml", "broken = \n[admin]\nsocket = \"x.sock\"\n");
  EXPECT_EQ(lds::admin_socket_of_file(file), dir_ / "c/x.sock");
  // Not set: the default, beside the file.
  file = write("d/broker.toml", "broken = \n");
  EXPECT_EQ(lds::admin_socket_of_file(file), dir_ / "d/lds-admin.sock");
  // Set, but empty; and a file that cannot be read.
  file = write("e/broker.toml", "admin.socket = \"\"\n");
  EXPECT_EQ(error_of([&] { lds::admin_socket_of_file(file); }),
            file.string() + ": admin.socket must not be empty.");
  EXPECT_NE(error_of([&] {
              lds::admin_socket_of_file(dir_ / "missing.toml");
            }).find("missing.toml: cannot read the config file"),
            std::string::npos);
}

TEST_F(ConfigStore, KnowsWhichKeysAreDynamic) {
  for (const char* key : {"log.directory.select.strategy", "log.directory.select.size.balance",
                          "log.directory.select.size.keep.free.bytes", "cordoned.log.dirs",
                          "log.partition.expected.bytes", "log.level",
                          "replica.alter.log.dirs.io.max.bytes.per.second"}) {
    EXPECT_TRUE(lds::ConfigStore::is_dynamic_key(key)) << key;
  }
  for (const char* key :
       {"broker.id", "log.dirs", "plugin.dir", "admin.socket", "num.replica.alter.log.dirs.threads",
        "plugin.never.unload", "log.directory.select.size", "log.dirz"}) {
    EXPECT_FALSE(lds::ConfigStore::is_dynamic_key(key)) << key;
  }
}

}  // namespace

namespace lds {
namespace {

// The config the README and the demo use must load as shipped, from any working directory.
TEST(ShippedConfig, ConfBrokerTomlLoadsAndNamesTheDemoDirs) {
  const fs::path file = fs::path(LDS_SOURCE_DIR) / "conf" / "broker.toml";
  ConfigStore store(file);
  const BrokerConfig& c = store.current();
  EXPECT_EQ(c.strategy, "partition");
  ASSERT_EQ(c.log_dirs.size(), 3u);
  EXPECT_EQ(c.log_dirs[2], fs::path("/tmp/lds-demo/disk3"));
  EXPECT_EQ(c.plugin_dir, fs::weakly_canonical(fs::path(LDS_SOURCE_DIR) / "build" / "plugins"));
  EXPECT_FALSE(c.cordon_all);
  EXPECT_TRUE(c.cordoned.empty());
  // Kafka's clients reach the demo broker where they look first.
  EXPECT_EQ(c.listener_host, "127.0.0.1");
  EXPECT_EQ(c.listener_port, 9092);
}

}  // namespace
}  // namespace lds
