// kafka_log_manager_host_parity_test.cpp: Kafka 4.4.0's LogManagerTest cases about the log dir of
// a new partition, ported to the host's LogManager with the partition strategy (Kafka's rule)
// published: the choice among live dirs, cordoned dirs left out, offline dirs, the fallback to the
// next dir, a remembered preference, and future replicas counted.
// tests/plugins/kafka_log_manager_parity_test.cpp ports the rule alone, through the ABI.
//
// Source: Apache Kafka 4.4.0, storage/src/test/java/org/apache/kafka/storage/internals/log/
// LogManagerTest.java (moved there from core/src/test/scala/unit/kafka/log/ in 4.4, KAFKA-20435),
// and the LogManager it tests (storage/src/main/java/org/apache/kafka/storage/internals/log/
// LogManager.java, class org.apache.kafka.storage.internals.log.LogManager in
// kafka-storage-4.4.0.jar). Only the behaviour is carried over, and where lds does otherwise the
// test says so and checks what lds does.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "storage/log_manager.h"
#include "three_dir_test.h"
#include "util/errors.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

class KafkaLogManagerParityTest : public test::ThreeDirTest {
 protected:
  // Adds log dirs d4, d5, ... after d1, d2 and d3, each on a disk like theirs.
  void add_dirs(size_t total) {
    while (dirs_.size() < total) {
      dirs_.push_back(tmp_.path() / ("d" + std::to_string(dirs_.size() + 1)));
      probe_->set(dirs_.back(), 1ull << 40, 1ull << 39);
    }
  }

  // Makes log dir `i` fail from now on: a file where the folder was, so that creating a partition
  // in it fails (and the host takes it offline).
  void break_dir(size_t i) {
    fs::remove_all(dirs_[i]);
    std::ofstream(dirs_[i]) << "not a directory";
  }

  // The index in log.dirs of each dir the decision for a new partition of `topic` would try, in
  // order: Kafka's nextLogDirs.
  static std::vector<uint32_t> next_log_dirs(const LogManager& m, const std::string& topic) {
    const PlacementDecision decision = m.choose(topic, 0);
    return {decision.dirs.begin(), decision.dirs.end()};
  }

  // How many replicas (current or future) each log dir holds, in log.dirs order.
  static std::vector<size_t> replicas_per_dir(const LogManager& m) {
    std::vector<size_t> counts;
    for (const LogDirDescription& d : m.describe()) counts.push_back(d.partitions.size());
    return counts;
  }
};

// From LogManagerTest.testCreateLog (Kafka 4.4.0,
// storage/src/test/java/org/apache/kafka/storage/internals/log/LogManagerTest.java): with a single
// log dir, a new partition's log is created in it.
TEST_F(KafkaLogManagerParityTest, CreateLogWithOneDirCreatesItThere) {
  dirs_.resize(1);
  auto m = make();
  const PlacementResult r = m->create_partition("kafka", 0);
  EXPECT_TRUE(r.created);
  EXPECT_EQ(fs::path(r.log_dir), dirs_[0]);
  EXPECT_TRUE(fs::is_directory(dirs_[0] / "kafka-0"));
  EXPECT_EQ(m->append("kafka", 0, 100), 100u) << "the new log takes appends";
}

// From LogManagerTest.testCreateLogWithInvalidLogDir (Kafka 4.4.0, as above): a log dir that
// cannot be used at startup is offline, and a new partition's log is created in a live dir. Here
// the unusable dir comes first in log.dirs (Kafka's comes second), so that the choice has to pass
// over it.
TEST_F(KafkaLogManagerParityTest, CreateLogWithAnInvalidLogDirUsesALiveOne) {
  std::ofstream(tmp_.path() / "file") << "not a directory";
  dirs_ = {tmp_.path() / "file" / "bad", dirs_[0]};
  auto m = make();
  const std::vector<LogDirDescription> described = m->describe();
  ASSERT_EQ(described.size(), 2u);
  EXPECT_EQ(described[0].error, StorageErrc::kDirUnavailable) << "the invalid dir is offline";
  EXPECT_EQ(described[1].error, StorageErrc::kNone);
  const PlacementResult r = m->create_partition("kafka", 0);
  EXPECT_EQ(fs::path(r.log_dir), dirs_[1]);
  EXPECT_TRUE(fs::is_directory(dirs_[1] / "kafka-0"));
  EXPECT_EQ(m->append("kafka", 0, 100), 100u);
}

// From LogManagerTest.testCreateLogWithLogDirFallback (Kafka 4.4.0, as above): of five log dirs,
// the first half tried (two) fail when the partition's folder is created in them; the creation
// goes on to the next dir, and exactly one log is created, in none of the failing dirs. Here the
// failing dirs are the first two in log.dirs (the first two the rule tries when all are empty),
// and the host takes each offline as it fails; the dirs after the one used are not tried.
TEST_F(KafkaLogManagerParityTest, CreateLogFallsBackPastFailingDirsAndCreatesOneLog) {
  add_dirs(5);
  auto m = make();
  break_dir(0);
  break_dir(1);
  const PlacementResult r = m->create_partition("kafka", 0);
  EXPECT_EQ(fs::path(r.log_dir), dirs_[2]);
  int logs = 0;
  for (const fs::path& d : dirs_) logs += fs::is_directory(d / "kafka-0") ? 1 : 0;
  EXPECT_EQ(logs, 1) << "more than one log created";
  const std::vector<LogDirDescription> described = m->describe();
  ASSERT_EQ(described.size(), 5u);
  int failed = 0;
  for (const LogDirDescription& d : described) {
    failed += d.error == StorageErrc::kDirUnavailable ? 1 : 0;
  }
  EXPECT_EQ(failed, 2) << "half the dirs were tried and failed";
  EXPECT_EQ(described[0].error, StorageErrc::kDirUnavailable);
  EXPECT_EQ(described[1].error, StorageErrc::kDirUnavailable);
  EXPECT_TRUE(described[0].partitions.empty());
  EXPECT_TRUE(described[1].partitions.empty());
}

// From LogManagerTest.testLeastLoadedAssignment (Kafka 4.4.0, as above): with three log dirs,
// twenty partitions of one topic created one after the other are always assigned to the least
// loaded dir, so no dir is ever more than one log ahead of another.
TEST_F(KafkaLogManagerParityTest, LeastLoadedAssignmentBalancesThreeDirsEvenly) {
  auto m = make();
  for (int32_t partition = 0; partition < 20; ++partition) {
    m->create_partition("test", partition);
    const std::vector<size_t> counts = replicas_per_dir(*m);
    size_t total = 0;
    for (size_t c : counts) total += c;
    ASSERT_EQ(total, static_cast<size_t>(partition + 1)) << "the right number of logs";
    const auto [least, most] = std::minmax_element(counts.begin(), counts.end());
    ASSERT_LE(*most, *least + 1) << "after partition " << partition << ": load is uneven";
  }
}

// From LogManagerTest.testNextLogDirs (Kafka 4.4.0, as above), its first two steps: with two log
// dirs, both are candidates for a new partition; once the first is cordoned, it is not, and the
// second is. Kafka checks membership only; the order, here both empty, is log.dirs order.
TEST_F(KafkaLogManagerParityTest, NextLogDirsLeaveOutACordonedDir) {
  dirs_.resize(2);
  auto m = make();
  EXPECT_EQ(next_log_dirs(*m, "kafka"), (std::vector<uint32_t>{0, 1}));

  m->set_cordoned([&](const fs::path& d) { return d == dirs_[0]; });
  EXPECT_EQ(next_log_dirs(*m, "kafka"), (std::vector<uint32_t>{1}));
  EXPECT_EQ(fs::path(m->create_partition("kafka", 0).log_dir), dirs_[1]);
}

// From LogManagerTest.testNextLogDirs (Kafka 4.4.0, as above), its last step, where lds DIFFERS:
// with both log dirs cordoned, Kafka's LogManager still answers a dir (the first live one, d1) and
// creates the log there. lds-host refuses the creation instead, with what Kafka's controller
// answers when no broker has an uncordoned dir (INVALID_REPLICATION_FACTOR), and creates nothing.
TEST_F(KafkaLogManagerParityTest, NextLogDirsWithEveryDirCordonedIsRefusedWhereKafkaUsesTheFirst) {
  dirs_.resize(2);
  auto m = make();
  m->set_cordoned([](const fs::path&) { return true; });
  try {
    m->choose("kafka", 0);
    ADD_FAILURE() << "a dir was chosen with every dir cordoned";
  } catch (const StorageError& e) {
    EXPECT_EQ(e.code(), StorageErrc::kEveryDirCordoned) << e.what();
  }
  EXPECT_THROW(m->create_partition("kafka", 0), StorageError);
  EXPECT_EQ(m->partition_count(), 0u);
}

// No LogManagerTest method covers it; from LogManager.nextLogDirs (Kafka 4.4.0,
// storage/src/main/java/org/apache/kafka/storage/internals/log/LogManager.java), where lds
// DIFFERS: with one live dir, Kafka answers that dir without looking at cordons, so a broker whose
// only live dir is cordoned still creates the log there. lds-host refuses, as above.
TEST_F(KafkaLogManagerParityTest, OneLiveDirCordonedIsRefusedWhereKafkaUsesIt) {
  dirs_.resize(2);
  auto m = make();
  m->mark_offline(1, "test: the disk failed");
  m->set_cordoned([&](const fs::path& d) { return d == dirs_[0]; });
  try {
    m->create_partition("kafka", 0);
    ADD_FAILURE() << "the only live dir, cordoned, took the partition";
  } catch (const StorageError& e) {
    EXPECT_EQ(e.code(), StorageErrc::kEveryDirCordoned) << e.what();
  }
  EXPECT_EQ(m->partition_count(), 0u);
}

// From LogManagerTest.testUpdateCordonedLogDirs (Kafka 4.4.0, as above): with two log dirs none is
// cordoned at first; after the cordons are set to the first, it alone is cordoned.
TEST_F(KafkaLogManagerParityTest, UpdateCordonedLogDirsCordonsTheNamedDirOnly) {
  dirs_.resize(2);
  auto m = make();
  for (const LogDirDescription& d : m->describe()) EXPECT_FALSE(d.cordoned) << d.log_dir;
  m->set_cordoned([&](const fs::path& d) { return d == dirs_[0]; });
  const std::vector<LogDirDescription> described = m->describe();
  ASSERT_EQ(described.size(), 2u);
  EXPECT_TRUE(described[0].cordoned);
  EXPECT_FALSE(described[1].cordoned);
}

// From LogManagerTest.testMetricsAreRemovedWhenMovingCurrentToFutureLog (Kafka 4.4.0, as above),
// its placement steps only: a log dir remembered as preferred for a partition (KIP-113) decides
// where its log is created, over the rule; a move to another dir creates the future replica in
// that dir. Here the preferred dir is d2, where the rule would not go (d1 is first and as empty).
TEST_F(KafkaLogManagerParityTest, PreferredLogDirDecidesWhereCurrentAndFutureLogsGo) {
  auto m = make();
  m->remember_preferred_dir({"future-log", 0}, dirs_[1]);
  const PlacementResult r = m->create_partition("future-log", 0);
  EXPECT_EQ(fs::path(r.log_dir), dirs_[1]);
  EXPECT_EQ(r.strategy, "preferred");

  m->set_move_throttle(0);  // holds the move with its future replica in place
  ASSERT_EQ(m->alter_replica_log_dir({"future-log", 0}, dirs_[2].string()).error,
            StorageErrc::kNone);
  const std::vector<LogDirDescription> described = m->describe();
  ASSERT_EQ(described[2].partitions.size(), 1u);
  EXPECT_EQ(described[2].partitions[0].partition, "future-log-0");
  EXPECT_TRUE(described[2].partitions[0].is_future);
}

// No LogManagerTest method covers it; from LogManager.nextLogDirs (Kafka 4.4.0, as above): a dir's
// load is the number of logs it holds, current and future replicas alike, so a move in progress
// counts in its destination as well as in its source.
TEST_F(KafkaLogManagerParityTest, FutureReplicasCountInTheirDirsLoad) {
  auto m = make();
  ASSERT_EQ(fs::path(m->create_partition("kafka", 0).log_dir), dirs_[0]);
  ASSERT_EQ(fs::path(m->create_partition("kafka", 1).log_dir), dirs_[1]);
  m->set_move_throttle(0);  // holds the move with its future replica in place
  ASSERT_EQ(m->alter_replica_log_dir({"kafka", 0}, dirs_[2].string()).error, StorageErrc::kNone);

  std::vector<uint32_t> indices;
  const std::vector<lds_dir> candidates = m->candidates("kafka", false, &indices);
  ASSERT_EQ(indices, (std::vector<uint32_t>{0, 1, 2}));
  for (const lds_dir& d : candidates) EXPECT_EQ(d.partition_count, 1u) << d.path;
  // d3 holds only the future replica; counted, it ties with d1, which comes first in log.dirs.
  EXPECT_EQ(fs::path(m->create_partition("kafka", 2).log_dir), dirs_[0]);
}

}  // namespace
}  // namespace lds
