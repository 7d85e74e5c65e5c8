// reliability_test.cpp: host-level security and degraded-disk checks: strategy names refused before
// any file is touched, plugin files and folders owned by another user, cordon entries with `..`
// tricks, and an unreadable disk size making `size` fall back to partition counting, logged once.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "config/config.h"
#include "host_test_support.h"
#include "storage/log_manager.h"
#include "strategy/strategy_plugin.h"
#include "util/errors.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

using test::FakeDiskProbe;
using test::LogCapture;
using test::TempDir;

constexpr uid_t kNobody = 65534;

std::string load_error(const fs::path& dir, const std::string& name) {
  StrategyLoadSpec spec;
  spec.plugin_dir = dir;
  spec.name = name;
  try {
    LoadedStrategy::load(spec);
  } catch (const PluginError& e) {
    return e.what();
  }
  return "loaded";
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(PluginSecurity, NamesAreRefusedBeforeAnyFileIsLookedAt) {
  // plugin.dir does not exist: a name error, not a file error, proves nothing was opened first.
  const fs::path missing = "/nonexistent/lds/plugins";
  for (const std::string& bad :
       std::vector<std::string>{"../partition", "/etc/passwd", "../../lib/x", "a/b", "Size", "",
                                "size.so", "a-b", "x y", "x\ny"}) {
    const std::string error = load_error(missing, bad);
    EXPECT_EQ(error, "Strategy name '" + bad +
                         "' is invalid: it must match [a-z0-9_]+ (log.directory.select.strategy).")
        << bad;
  }
  EXPECT_NE(load_error(missing, "partition")
                .find("plugin.dir /nonexistent/lds/plugins is not a "
                      "directory"),
            std::string::npos);
}

TEST(PluginSecurity, AFileOwnedByAnotherUserIsRefusedSayingWhy) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "not running as root, so a file cannot be given to uid 65534";
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  const fs::path file = dir.path() / "liblds_partition.so";
  fs::copy_file(test::plugin_dir() / "liblds_partition.so", file);
  ::chmod(file.c_str(), 0755);
  ASSERT_EQ(::chown(file.c_str(), kNobody, kNobody), 0);
  EXPECT_EQ(load_error(dir.path(), "partition"),
            "Strategy plugin " + file.string() +
                " is refused: its file is owned by uid 65534, not by root or by this server's "
                "user.");
  ASSERT_EQ(::chown(file.c_str(), 0, 0), 0);
  EXPECT_EQ(load_error(dir.path(), "partition"), "loaded");
}

TEST(PluginSecurity, APluginDirOwnedByAnotherUserIsRefusedSayingWhy) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "not running as root, so a folder cannot be given to uid 65534";
  TempDir dir;
  const fs::path plugins = dir.path() / "plugins";
  fs::create_directory(plugins);
  ::chmod(plugins.c_str(), 0755);
  fs::copy_file(test::plugin_dir() / "liblds_partition.so", plugins / "liblds_partition.so");
  ASSERT_EQ(::chown(plugins.c_str(), kNobody, kNobody), 0);
  EXPECT_EQ(load_error(plugins, "partition"),
            "Strategy plugin " + (plugins / "liblds_partition.so").string() +
                " is refused: its folder (plugin.dir) is owned by uid 65534, not by root or by "
                "this server's user.");
}

TEST(PluginSecurity, ASymlinkInsidePluginDirToAFileInsideItLoads) {
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  fs::copy_file(test::plugin_dir() / "liblds_partition.so", dir.path() / "partition-1.0.so");
  fs::create_symlink("partition-1.0.so", dir.path() / "liblds_partition.so");
  EXPECT_EQ(load_error(dir.path(), "partition"), "loaded");
  // The same link through `..` out of the folder and back in is still inside.
  fs::remove(dir.path() / "liblds_partition.so");
  fs::create_symlink("../" + dir.path().filename().string() + "/partition-1.0.so",
                     dir.path() / "liblds_partition.so");
  EXPECT_EQ(load_error(dir.path(), "partition"), "loaded");
}

class CordonCanonicalisation : public ::testing::Test {
 protected:
  fs::path write(const std::string& text) {
    const fs::path file = dir_ / "broker.toml";
    std::ofstream(file, std::ios::trunc) << text;
    return file;
  }
  std::string error_of(const fs::path& file, const std::vector<ConfigAlteration>& changes = {}) {
    try {
      ConfigStore store(file);
      if (!changes.empty()) store.preview(changes);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "accepted";
  }
  // Kafka's text: DynamicLogConfig's validation of cordoned.log.dirs (KIP-1066) in
  // ConfigException's frame, as server/src/test/java/org/apache/kafka/server/config/
  // DynamicLogConfigTest.java (testValidateCordonedLogDirsReportsAllInvalidEntries) quotes it:
  // "Invalid value [/tmp/bad-1, /tmp/bad-2] for configuration cordoned.log.dirs: Invalid entries
  // in cordoned.log.dirs: [/tmp/bad-1, /tmp/bad-2]. All cordoned log dirs must be entries of
  // log.dirs or log.dir."
  static std::string kafka(const std::string& entry) {
    return "Invalid value [" + entry +
           "] for configuration cordoned.log.dirs: Invalid entries in cordoned.log.dirs: [" +
           entry + "]. All cordoned log dirs must be entries of log.dirs or log.dir.";
  }

  TempDir tmp_;
  fs::path dir_ = canonical_path("/", tmp_.path());
};

TEST_F(CordonCanonicalisation, EntriesThatResolveToALogDirAreThatDir) {
  fs::create_directories(dir_ / "a");
  fs::create_directory_symlink(dir_ / "a", dir_ / "alias");
  const std::string base = dir_.filename().string();
  ConfigStore store(
      write("log.dirs = [\"a\", \"b\"]\n"
            "cordoned.log.dirs = [\"b/../a\", \"../" +
            base + "/b\", \"alias\"]\n"));
  EXPECT_EQ(store.current().cordoned, (std::vector<fs::path>{dir_ / "a", dir_ / "b"}));
  BrokerConfig next = store.preview(
      {{"cordoned.log.dirs", ConfigAlteration::Op::kSet, (dir_ / "b/./../b/").string()}});
  EXPECT_EQ(next.cordoned, std::vector<fs::path>{dir_ / "b"});
}

TEST_F(CordonCanonicalisation, EntriesThatEscapeTheLogDirsAreRefused) {
  fs::create_directory_symlink("/etc", dir_ / "evil");
  const fs::path file = write("log.dirs = [\"a\", \"b\"]\n");
  for (const std::string& entry : std::vector<std::string>{
           "a/../../etc", (dir_ / "a/../..").string(), std::string("evil"), std::string("a/.."),
           std::string("/"), (dir_ / "a/../c").string()}) {
    EXPECT_EQ(error_of(file, {{"cordoned.log.dirs", ConfigAlteration::Op::kSet, entry}}),
              kafka(entry))
        << entry;
  }
  EXPECT_EQ(error_of(write("log.dirs = [\"a\", \"b\"]\ncordoned.log.dirs = \"b/../../b\"\n")),
            (dir_ / "broker.toml").string() + ":2:1: " + kafka("b/../../b"));
}

TEST(DegradedDisk, UnreadableSpaceSetsSpaceUnknownAndSizeFallsBackLoggedOnce) {
  TempDir tmp;
  std::vector<fs::path> dirs;
  auto probe = std::make_shared<FakeDiskProbe>();
  for (const char* name : {"d1", "d2", "d3"}) dirs.push_back(tmp.path() / name);
  // d1 is nearly full, d3 nearly empty: with sizes known, `size` would pick d3 every time.
  probe->set(dirs[0], 1000000, 10000);
  probe->set(dirs[2], 1000000, 990000);
  probe->fail(dirs[1]);  // statvfs fails for d2
  StrategySlot slot;
  LogManager::Options options;
  options.log_dirs = dirs;
  LogManager m(options, probe, slot);
  m.startup();
  LogCapture logs("lds.plugin.size");
  slot.publish(test::load_plugin("size", {}, slot.next_generation()));

  std::vector<lds_dir> candidates = m.candidates("t", true, nullptr);
  ASSERT_EQ(candidates.size(), 3u);
  EXPECT_EQ(candidates[0].flags & LDS_DIR_SPACE_UNKNOWN, 0u);
  EXPECT_EQ(candidates[1].flags & LDS_DIR_SPACE_UNKNOWN, uint32_t{LDS_DIR_SPACE_UNKNOWN});
  EXPECT_EQ(candidates[2].flags & LDS_DIR_SPACE_UNKNOWN, 0u);

  std::vector<int> where;
  for (int32_t p = 0; p < 6; ++p) {
    PlacementResult placed = m.create_partition("t", p);
    EXPECT_FALSE(placed.fell_back) << "the plugin's own fallback, not the host's";
    where.push_back(m.dir_index(placed.log_dir) + 1);
  }
  EXPECT_EQ(where, (std::vector<int>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(slot.fallbacks(), 0u);
  const std::string warning = "strategy size: the space of log directory '" + dirs[1].string() +
                              "' is unknown (unreadable or total_bytes 0); ranking by partition "
                              "count while any directory's space is unknown. This warning is "
                              "logged once.";
  EXPECT_EQ(occurrences(logs.text(), warning), 1u) << logs.text();

  // Once the size can be read again, `size` ranks by space: d3 is the emptiest.
  probe->set(dirs[1], 1000000, 500000);
  EXPECT_EQ(m.dir_index(m.create_partition("u", 0).log_dir), 2);
  EXPECT_EQ(occurrences(logs.text(), "This warning is logged once."), 1u);
}

}  // namespace
}  // namespace lds
