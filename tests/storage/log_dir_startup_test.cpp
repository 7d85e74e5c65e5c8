// log_dir_startup_test.cpp: what LogManager::startup does to its log directories before serving:
// one LogManager per directory (the .lock), meta.properties read and never rewritten, Kafka's
// version 1 file for new directories, no start with every directory unusable, and the callback
// when the last directory fails at run time.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "filler_log.h"
#include "host_test_support.h"
#include "io/log_layout.h"
#include "model/uuid.h"
#include "storage/log_manager.h"
#include "storage/meta_properties.h"

namespace lds {
namespace {

namespace fs = std::filesystem;
using test::FakeDiskProbe;
using test::LogCapture;
using test::TempDir;

std::string read_all(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

// Every entry under `root` with its size (-1 for a directory): what "nothing changed" compares.
std::map<std::string, int64_t> snapshot(const fs::path& root) {
  std::map<std::string, int64_t> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    out[it->path().string()] =
        it->is_directory() ? -1 : static_cast<int64_t>(fs::file_size(it->path()));
  }
  return out;
}

class LogDirStartupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"d1", "d2", "d3"}) dirs_.push_back(tmp_.path() / name);
    slot_.publish(test::load_plugin("partition", {}, slot_.next_generation()));
  }

  std::unique_ptr<LogManager> make(std::vector<fs::path> dirs = {}, bool in_memory = false) {
    LogManager::Options options;
    options.log_dirs = dirs.empty() ? dirs_ : std::move(dirs);
    options.in_memory = in_memory;
    options.cluster_id = cluster_id_;
    return std::make_unique<LogManager>(options, probe_, slot_);
  }
  std::unique_ptr<LogManager> started(std::vector<fs::path> dirs = {}) {
    auto m = make(std::move(dirs));
    m->startup();
    return m;
  }
  std::string startup_error(LogManager& m) {
    try {
      m.startup();
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  }
  static std::string id_of(const LogManager& m, const fs::path& dir) {
    for (const auto& d : m.describe()) {
      if (d.log_dir == dir.string()) return d.directory_id;
    }
    return "";
  }

  TempDir tmp_;
  std::vector<fs::path> dirs_;
  std::string cluster_id_;  // cluster.id from the config; empty: none
  std::shared_ptr<FakeDiskProbe> probe_ = std::make_shared<FakeDiskProbe>();
  StrategySlot slot_;
};

TEST_F(LogDirStartupTest, ASecondLogManagerOnASharedDirIsRefusedHavingTouchedNothing) {
  auto first = started({dirs_[0], dirs_[1]});
  first->create_partition("t", 0);
  first->append("t", 0, 1000);
  const auto before = snapshot(tmp_.path());

  // Its own new dir comes first in log.dirs, the shared one second: nothing is created either.
  auto second = make({dirs_[2], dirs_[1]});
  EXPECT_EQ(startup_error(*second),
            "Failed to acquire lock on file .lock in " + dirs_[1].string() +
                ". A Kafka instance in another process or thread is using this directory.");
  EXPECT_EQ(snapshot(tmp_.path()), before);
  EXPECT_FALSE(fs::exists(dirs_[2]));
  EXPECT_EQ(first->append("t", 0, 100), 1100u) << "the first one keeps serving";

  // Once the first is gone, its directories can be taken.
  second.reset();
  first.reset();
  auto again = started({dirs_[2], dirs_[1], dirs_[0]});
  EXPECT_EQ(again->partition_count(), 1u);
}

TEST_F(LogDirStartupTest, DeletingTheLockFileBehindARunningBrokerDoesNotLetASecondOneIn) {
  auto first = started({dirs_[0], dirs_[1]});
  first->create_partition("t", 0);
  fs::remove(dirs_[1] / layout::kLockFile);
  const auto before = snapshot(tmp_.path());

  auto second = make({dirs_[1]});
  EXPECT_EQ(startup_error(*second),
            "Failed to acquire lock on file .lock in " + dirs_[1].string() +
                ". A Kafka instance in another process or thread is using this directory.");
  EXPECT_EQ(snapshot(tmp_.path()), before) << "the refusal recreated nothing, not even .lock";
  EXPECT_FALSE(fs::exists(dirs_[1] / layout::kLockFile));

  // Once the first is gone, the dir is taken again and gets its .lock back.
  second.reset();
  first.reset();
  auto again = started({dirs_[1], dirs_[0]});
  EXPECT_EQ(again->partition_count(), 1u);
  EXPECT_TRUE(fs::is_regular_file(dirs_[1] / layout::kLockFile));
}

TEST_F(LogDirStartupTest, ATornLastBatchIsCutAtStartupAndAppendsGoOnAfterTheWholeBatches) {
  const fs::path segment = dirs_[0] / "t-0" / layout::segment_file(0);
  int64_t end = 0;
  {
    auto m = started({dirs_[0]});
    m->create_partition("t", 0);
    m->append("t", 0, 5000);
    end = m->log_offsets({"t", 0}).log_end_offset;
  }
  // What a kill -9 in the middle of a write leaves: the first 100 bytes of a batch.
  const std::string whole = read_all(segment);
  std::ofstream(segment, std::ios::binary | std::ios::app) << whole.substr(0, 100);

  LogCapture logs("lds.log_manager");
  auto m = started({dirs_[0]});
  EXPECT_EQ(fs::file_size(segment), 5000u) << "the torn batch was not cut off";
  EXPECT_EQ(m->log_offsets({"t", 0}).log_end_offset, end);
  EXPECT_NE(logs.text().find("Found invalid messages in log segment " + segment.string() +
                             " at byte offset 5000"),
            std::string::npos)
      << logs.text();
  EXPECT_EQ(m->append("t", 0, 1000), 6000u);
  EXPECT_EQ(test::filler_log_problem(dirs_[0] / "t-0", "t", 0, 6000), "");
}

TEST_F(LogDirStartupTest, ACorruptBatchBeforeTheTailRefusesTheStartAndTruncatesNothing) {
  const fs::path segment = dirs_[0] / "t-0" / layout::segment_file(0);
  {
    auto m = started({dirs_[0]});
    m->create_partition("t", 0);
    m->append("t", 0, 5000);
    m->append("t", 0, 5000);
  }
  std::string bytes = read_all(segment);
  bytes[200] ^= 0x20;  // inside the first batch; whole batches follow it
  write(segment, bytes);
  const auto before = snapshot(tmp_.path());
  auto m = make({dirs_[0]});
  const std::string error = startup_error(*m);
  EXPECT_EQ(
      error.rfind("Log segment " + segment.string() + " holds no valid record batch at byte 0", 0),
      0u)
      << error;
  EXPECT_NE(error.find("nothing was truncated"), std::string::npos) << error;
  EXPECT_EQ(snapshot(tmp_.path()), before);
  EXPECT_EQ(read_all(segment), bytes);
}

TEST_F(LogDirStartupTest, TheLockFileIsNotAPartitionAndTheScanIgnoresIt) {
  EXPECT_EQ(layout::parse_entry(layout::kLockFile).kind, layout::EntryKind::kOther);
  {
    auto m = started();
    m->create_partition("t", 0);
    for (const auto& d : dirs_) EXPECT_TRUE(fs::is_regular_file(d / layout::kLockFile)) << d;
  }
  LogCapture capture("lds.log_manager");
  auto m = started();
  EXPECT_EQ(m->partition_count(), 1u);
  for (const auto& d : m->describe()) EXPECT_EQ(d.error, StorageErrc::kNone) << d.log_dir;
  EXPECT_EQ(capture.text().find(".lock"), std::string::npos) << capture.text();
}

TEST_F(LogDirStartupTest, TheInMemoryModeTakesNoLockAndCreatesNothing) {
  auto m = make({}, true);
  m->startup();
  for (const auto& d : dirs_) EXPECT_FALSE(fs::exists(d)) << d;
  auto other = make({}, true);
  EXPECT_NO_THROW(other->startup());
}

TEST_F(LogDirStartupTest, NewDirsGetKafkasVersion1FileWithOneClusterId) {
  auto m = started();
  std::string cluster;
  std::vector<std::string> ids;
  for (const auto& d : dirs_) {
    const std::string text = read_all(d / "meta.properties");
    const MetaProperties meta = meta_properties_of(
        parse_java_properties(text, d / "meta.properties"), d / "meta.properties");
    EXPECT_EQ(meta.version, 1);
    EXPECT_EQ(meta.node_id, 0);
    ASSERT_TRUE(meta.cluster_id && meta.directory_id) << text;
    EXPECT_EQ(uuid_problem(*meta.cluster_id), "");
    if (cluster.empty()) cluster = *meta.cluster_id;
    EXPECT_EQ(*meta.cluster_id, cluster) << "one cluster id for every new dir of a startup";
    EXPECT_EQ(*meta.directory_id, id_of(*m, d));
    ids.push_back(*meta.directory_id);
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::unique(ids.begin(), ids.end()), ids.end()) << "directory ids must differ";
}

TEST_F(LogDirStartupTest, ANewDirTakesTheClusterIdOfTheExistingOnes) {
  write(dirs_[1] / "meta.properties",
        "#\n#Tue Nov 04 10:00:00 UTC 2025\nnode.id=0\ndirectory.id=J8aAPcfLQt2bqs1JT_rMgQ\n"
        "version=1\ncluster.id=MkU3OEVBNTcwNTJENDM2Qk\n");
  auto m = started();
  for (const fs::path& d : {dirs_[0], dirs_[2]}) {
    const std::string text = read_all(d / "meta.properties");
    EXPECT_NE(text.find("\ncluster.id=MkU3OEVBNTcwNTJENDM2Qk\n"), std::string::npos) << text;
  }
  EXPECT_EQ(id_of(*m, dirs_[1]), "J8aAPcfLQt2bqs1JT_rMgQ");
}

TEST_F(LogDirStartupTest, NewDirsGetTheConfiguredClusterId) {
  write(dirs_[1] / "meta.properties",
        "version=1\nnode.id=0\ncluster.id=MkU3OEVBNTcwNTJENDM2Qk\ndirectory.id=J8aAPcfLQt2bqs1JT_"
        "rMgQ\n");
  cluster_id_ = "MkU3OEVBNTcwNTJENDM2Qk";
  auto m = started();
  for (const fs::path& d : {dirs_[0], dirs_[2]}) {
    const MetaProperties meta = *read_meta_properties(d / "meta.properties");
    EXPECT_EQ(meta.cluster_id, "MkU3OEVBNTcwNTJENDM2Qk") << d;
  }
}

// Kafka's sentence, MetaPropertiesEnsemble.verify (apache/kafka
// metadata/src/main/java/org/apache/kafka/metadata/properties/MetaPropertiesEnsemble.java):
// "Invalid cluster.id in: <path>. Expected <expected>, but read <stored>".
TEST_F(LogDirStartupTest, AStoredClusterIdOtherThanTheConfiguredOneRefusesTheStart) {
  const std::string stored =
      "version=1\nnode.id=0\ncluster.id=J8aAPcfLQt2bqs1JT_rMgQ\ndirectory.id="
      "MkU3OEVBNTcwNTJENDM2Qk\n";
  write(dirs_[1] / "meta.properties", stored);
  cluster_id_ = "AAAAAAAAAAAAAAAAAAAAAA";
  auto m = make();
  EXPECT_EQ(startup_error(*m), "Invalid cluster.id in: " + (dirs_[1] / "meta.properties").string() +
                                   ". Expected AAAAAAAAAAAAAAAAAAAAAA, but read "
                                   "J8aAPcfLQt2bqs1JT_rMgQ (the cluster.id the config sets).");
  EXPECT_EQ(read_all(dirs_[1] / "meta.properties"), stored);
  EXPECT_FALSE(fs::exists(dirs_[0] / "meta.properties"));
  EXPECT_FALSE(fs::exists(dirs_[2] / "meta.properties"));
  // The same id in the config as in the directory: it starts.
  m.reset();
  cluster_id_ = "J8aAPcfLQt2bqs1JT_rMgQ";
  m = make();
  EXPECT_EQ(startup_error(*m), "no error");
}

TEST_F(LogDirStartupTest, AFileThatExistsIsNeverRewrittenEvenWithoutADirectoryId) {
  const std::string hand_written = "# written by hand\r\nversion = 0\r\nbroker.id : 0\r\n";
  write(dirs_[0] / "meta.properties", hand_written);
  std::string id;
  {
    LogCapture capture("lds.log_manager");
    auto m = started();
    id = id_of(*m, dirs_[0]);
    EXPECT_EQ(id, directory_id_for_path(dirs_[0]));
    EXPECT_NE(capture.text().find((dirs_[0] / "meta.properties").string() +
                                  " has no directory.id; this run uses " + id),
              std::string::npos)
        << capture.text();
  }
  EXPECT_EQ(read_all(dirs_[0] / "meta.properties"), hand_written);
  auto m = started();
  EXPECT_EQ(id_of(*m, dirs_[0]), id) << "the derived id is stable across restarts";
  EXPECT_EQ(read_all(dirs_[0] / "meta.properties"), hand_written);
}

TEST_F(LogDirStartupTest, AMetaPropertiesOfGarbageBytesRefusesTheStartNamingItAndIsKept) {
  const char raw[] = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00";
  const std::string garbage(raw, sizeof raw - 1);
  write(dirs_[1] / "meta.properties", garbage);
  auto m = make();
  EXPECT_EQ(startup_error(*m), (dirs_[1] / "meta.properties").string() +
                                   ": No version, node.id or broker.id line is found, so this is "
                                   "not a meta.properties Kafka writes; restore the directory's "
                                   "own file, or remove it to have a new one written, and start "
                                   "again.");
  EXPECT_EQ(read_all(dirs_[1] / "meta.properties"), garbage);
  for (const fs::path& d : {dirs_[0], dirs_[2]}) {
    EXPECT_FALSE(fs::exists(d / "meta.properties")) << "written before the refusal: " << d;
  }
}

TEST_F(LogDirStartupTest, AnotherNodesDirIsRefusedWithKafkasSentenceAndNothingIsWritten) {
  const std::string hand_written = "broker.id = 5\n";
  write(dirs_[1] / "meta.properties", hand_written);
  auto m = make();
  EXPECT_EQ(startup_error(*m), node_id_mismatch(5, 0, dirs_[1] / "meta.properties"));
  EXPECT_EQ(read_all(dirs_[1] / "meta.properties"), hand_written);
  for (const fs::path& d : {dirs_[0], dirs_[2]}) {
    EXPECT_FALSE(fs::exists(d / "meta.properties")) << "written before the refusal: " << d;
  }
}

TEST_F(LogDirStartupTest, AMalformedFileIsRefusedNamingItAndKeptAsItIs) {
  write(dirs_[2] / "meta.properties", "version=1\nbroker.id=0\ncluster.id=c\n");
  auto m = make();
  EXPECT_EQ(startup_error(*m),
            (dirs_[2] / "meta.properties").string() +
                ": node.id was not specified in this version 1 file (version 1 and later name "
                "the node node.id, not broker.id).");
  EXPECT_EQ(read_all(dirs_[2] / "meta.properties"), "version=1\nbroker.id=0\ncluster.id=c\n");
  EXPECT_FALSE(fs::exists(dirs_[0] / "meta.properties"));
}

// The file lds-host 0.1 wrote: the dirs of an upgraded broker start, and the file stays unchanged.
TEST_F(LogDirStartupTest, TheFileLdsHost01WroteStartsAndIsKeptAsItIs) {
  const std::string old_file =
      "#Written by lds-host; Kafka's log directory metadata.\nversion=1\nbroker.id=0\n"
      "directory.id=J8aAPcfLQt2bqs1JT_rMgQ\n";
  write(dirs_[2] / "meta.properties", old_file);
  auto m = make();
  EXPECT_EQ(startup_error(*m), "no error");
  EXPECT_EQ(read_all(dirs_[2] / "meta.properties"), old_file);
  const auto described = m->describe();
  EXPECT_EQ(described[2].directory_id, "J8aAPcfLQt2bqs1JT_rMgQ");
}

TEST_F(LogDirStartupTest, DirsOfTwoClustersOrSharingAnIdAreRefused) {
  write(dirs_[0] / "meta.properties", "version=1\nnode.id=0\ncluster.id=aaa\n");
  write(dirs_[1] / "meta.properties", "version=1\nnode.id=0\ncluster.id=bbb\n");
  auto m = make();
  EXPECT_EQ(startup_error(*m), "Invalid cluster.id in: " + (dirs_[1] / "meta.properties").string() +
                                   ". Expected aaa, but read bbb (" +
                                   (dirs_[0] / "meta.properties").string() + " says aaa).");
  m.reset();
  write(dirs_[0] / "meta.properties", "broker.id=0\ndirectory.id=J8aAPcfLQt2bqs1JT_rMgQ\n");
  write(dirs_[1] / "meta.properties", "broker.id=0\ndirectory.id=J8aAPcfLQt2bqs1JT_rMgQ\n");
  m = make();
  EXPECT_EQ(startup_error(*m),
            "Duplicate directory ID J8aAPcfLQt2bqs1JT_rMgQ found. It was the ID "
            "of " +
                dirs_[0].string() + ", but also of " + dirs_[1].string() + ".");
}

TEST_F(LogDirStartupTest, WithEveryDirUnusableStartupIsRefusedNamingEachAndItsFault) {
  write(tmp_.path() / "file", "not a directory");
  const std::vector<fs::path> dirs{tmp_.path() / "file" / "a", tmp_.path() / "file" / "b"};
  auto m = make(dirs);
  EXPECT_EQ(startup_error(*m),
            "Shutdown broker because none of the specified log dirs from " + dirs[0].string() +
                ", " + dirs[1].string() + " can be created or validated: " + dirs[0].string() +
                ": Failed to create or validate the data directory: Not a directory; " +
                dirs[1].string() +
                ": Failed to create or validate the data directory: Not a "
                "directory.");
}

TEST_F(LogDirStartupTest, AnUnusableDirIsOfflineWhileTheOthersServe) {
  write(tmp_.path() / "file", "not a directory");
  const fs::path bad = tmp_.path() / "file" / "a";
  auto m = started({bad, dirs_[0]});
  const auto described = m->describe();
  EXPECT_EQ(described[0].error, StorageErrc::kDirUnavailable);
  EXPECT_EQ(described[0].error_message,
            "Failed to create or validate the data directory: Not a directory");
  EXPECT_EQ(described[1].error, StorageErrc::kNone);
  EXPECT_EQ(m->create_partition("t", 0).log_dir, dirs_[0].string());
}

TEST_F(LogDirStartupTest, TheLastDirGoingOfflineCallsTheCallbackOnceWithKafkasSentence) {
  auto m = make();
  std::vector<std::string> calls;
  m->set_on_all_dirs_offline([&](const std::string& sentence) { calls.push_back(sentence); });
  m->startup();
  m->mark_offline(0, "test");
  m->mark_offline(2, "test");
  EXPECT_TRUE(calls.empty()) << "a dir is still online";
  m->mark_offline(1, "test");
  m->mark_offline(1, "again");
  EXPECT_EQ(calls, std::vector<std::string>{"Shutdown broker because all log dirs in " +
                                            dirs_[0].string() + ", " + dirs_[1].string() + ", " +
                                            dirs_[2].string() + " have failed"});
}

TEST_F(LogDirStartupTest, NoCallbackBeforeStartupHasFinished) {
  write(tmp_.path() / "file", "not a directory");
  auto m = make({tmp_.path() / "file" / "a"});
  bool called = false;
  m->set_on_all_dirs_offline([&](const std::string&) { called = true; });
  EXPECT_NE(startup_error(*m).find("Shutdown broker because none of"), std::string::npos);
  EXPECT_FALSE(called) << "startup refuses with ConfigError instead";
}

}  // namespace
}  // namespace lds
