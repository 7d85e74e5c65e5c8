// log_manager_test.cpp: placement, reservations, offline directories and the startup scan of
// LogManager.
#include "storage/log_manager.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "filler_log.h"
#include "host_test_support.h"
#include "io/log_layout.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

using test::FakeDiskProbe;
using test::load_plugin;
using test::TempDir;

constexpr uint64_t kMB = 1000ull * 1000;

class LogManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"d1", "d2", "d3"}) dirs_.push_back(tmp_.path() / name);
    for (const auto& d : dirs_) probe_->set(d, 1000 * kMB, 1000 * kMB);
  }

  std::unique_ptr<LogManager> make(int32_t broker_id = 0) {
    LogManager::Options options;
    options.broker_id = broker_id;
    options.log_dirs = dirs_;
    auto m = std::make_unique<LogManager>(options, probe_, slot_);
    m->startup();
    return m;
  }

  void use(const std::string& name, std::vector<std::pair<std::string, std::string>> options = {}) {
    slot_.publish(load_plugin(name, std::move(options), slot_.next_generation()));
  }

  // Which log dir (1-based) each partition of `topic` landed in, in creation order.
  std::vector<int> place(LogManager& m, const std::string& topic, int count,
                         std::optional<uint64_t> expected = std::nullopt) {
    std::vector<int> where;
    for (int p = 0; p < count; ++p) {
      PlacementResult r = m.create_partition(topic, p, expected);
      where.push_back(m.dir_index(r.log_dir) + 1);
    }
    return where;
  }

  std::map<std::string, LogDirDescription> by_dir(const LogManager& m) {
    std::map<std::string, LogDirDescription> out;
    for (auto& d : m.describe()) out[fs::path(d.log_dir).filename().string()] = d;
    return out;
  }

  TempDir tmp_;
  std::vector<fs::path> dirs_;
  std::shared_ptr<FakeDiskProbe> probe_ = std::make_shared<FakeDiskProbe>();
  StrategySlot slot_;
};

// The simulator's levers exist on an in-memory LogManager alone: one on disks offers none.
TEST_F(LogManagerTest, OnlyAnInMemoryLogManagerOffersInMemoryStorage) {
  EXPECT_EQ(make()->in_memory_storage(), nullptr);
  LogManager::Options options;
  options.log_dirs = {"/a", "/b"};
  options.in_memory = true;
  LogManager m(options, probe_, slot_);
  m.startup();
  ASSERT_NE(m.in_memory_storage(), nullptr);
  use("partition");
  m.create_partition("t", 0);
  EXPECT_EQ(m.in_memory_storage()->add_existing_bytes({"t", 0}, 5 * kMB), 5 * kMB);
  EXPECT_EQ(m.describe()[0].partitions.at(0).size, 5 * kMB);
  EXPECT_THROW(m.in_memory_storage()->add_existing_bytes({"t", 1}, 1), StorageError);
}

TEST_F(LogManagerTest, PartitionStrategyPlacesFewestPartitionsFirstInLogDirsOrder) {
  use("partition");
  auto m = make();
  EXPECT_EQ(place(*m, "orders", 6), (std::vector<int>{1, 2, 3, 1, 2, 3}));
  EXPECT_TRUE(fs::is_regular_file(dirs_[0] / "orders-0" / "00000000000000000000.log"));
  EXPECT_TRUE(fs::exists(dirs_[1] / "orders-1"));
}

TEST_F(LogManagerTest, SizeStrategyPicksTheLeastFilledDisk) {
  use("size");
  probe_->set(dirs_[0], 1000 * kMB, 100 * kMB);
  probe_->set(dirs_[1], 1000 * kMB, 500 * kMB);
  probe_->set(dirs_[2], 1000 * kMB, 300 * kMB);
  auto m = make();
  PlacementResult r = m->create_partition("t", 0);
  EXPECT_EQ(fs::path(r.log_dir), dirs_[1]);
  EXPECT_EQ(r.strategy, "size");
  EXPECT_EQ(r.generation, 1u);
}

TEST_F(LogManagerTest, ReservationsSpreadABurstOfEmptyPartitions) {
  use("size");
  probe_->set(dirs_[0], 1000 * kMB, 300 * kMB);
  probe_->set(dirs_[1], 1000 * kMB, 200 * kMB);
  probe_->set(dirs_[2], 1000 * kMB, 100 * kMB);
  auto m = make();
  auto where = place(*m, "burst", 30, 5 * kMB);
  int counts[4] = {};
  for (int w : where) counts[w]++;
  // d1 is 100 MB emptier than d2: it takes 20 partitions alone, then they alternate.
  EXPECT_EQ(counts[1], 25);
  EXPECT_EQ(counts[2], 5);
  EXPECT_EQ(counts[3], 0);
  auto d = by_dir(*m);
  EXPECT_EQ(d["d1"].reserved_bytes, 25 * 5 * kMB);
  EXPECT_EQ(d["d2"].reserved_bytes, 5 * 5 * kMB);
}

TEST_F(LogManagerTest, PartitionStrategyIgnoresSpaceAndFillsTheSmallDisk) {
  use("partition");
  probe_->set(dirs_[0], 1000 * kMB, 300 * kMB);
  probe_->set(dirs_[2], 1000 * kMB, 100 * kMB);
  auto m = make();
  auto where = place(*m, "burst", 30, 5 * kMB);
  int counts[4] = {};
  for (int w : where) counts[w]++;
  EXPECT_EQ(counts[1], 10);
  EXPECT_EQ(counts[2], 10);
  EXPECT_EQ(counts[3], 10);
}

TEST_F(LogManagerTest, ReservationShrinksAsBytesAreWrittenAndEndsAtZero) {
  use("partition");
  auto m = make();
  m->create_partition("t", 0, 10 * kMB);
  EXPECT_EQ(by_dir(*m)["d1"].reserved_bytes, 10 * kMB);
  EXPECT_EQ(m->append("t", 0, 4 * kMB), 4 * kMB);
  EXPECT_EQ(by_dir(*m)["d1"].reserved_bytes, 6 * kMB);
  EXPECT_EQ(m->append("t", 0, 8 * kMB), 12 * kMB);
  EXPECT_EQ(by_dir(*m)["d1"].reserved_bytes, 0u);
  EXPECT_EQ(fs::file_size(dirs_[0] / "t-0" / "00000000000000000000.log"), 12 * kMB);
}

TEST_F(LogManagerTest, ExpectedBytesComeFromRequestThenConfigThenTopicMeanThenGlobalMean) {
  use("partition");
  auto m = make();
  auto reserved = [&] {
    uint64_t sum = 0;
    for (const auto& d : m->describe()) sum += d.reserved_bytes;
    return sum;
  };
  m->create_partition("a", 0);  // nothing known yet: no reservation
  EXPECT_EQ(reserved(), 0u);
  m->append("a", 0, 6000);
  m->create_partition("b", 0);  // the mean of all hosted partitions: 6000
  EXPECT_EQ(reserved(), 6000u);
  m->append("b", 0, 2000);  // b-0's reservation shrinks to 4000
  EXPECT_EQ(reserved(), 4000u);
  m->create_partition("b", 1);  // the mean of topic b: 2000
  EXPECT_EQ(reserved(), 6000u);
  m->set_partition_expected_bytes(7000);
  m->create_partition("b", 2);  // log.partition.expected.bytes: 7000
  EXPECT_EQ(reserved(), 13000u);
  m->create_partition("b", 3, 9000);  // the request's own estimate: 9000
  EXPECT_EQ(reserved(), 22000u);
}

// A decision remembers the last topic it looked up; a deleted topic's figures are not read again,
// and a topic re-created under the same name starts from nothing.
TEST_F(LogManagerTest, ADeletedTopicsFiguresAreNotUsedForItsNextPartitions) {
  use("partition");
  auto m = make();
  m->create_partition("other", 0);
  m->append("other", 0, 1000);
  m->create_partition("t", 0);
  m->append("t", 0, 50000);
  EXPECT_EQ(m->choose("t", 1).expected_bytes, 50000u);  // topic t's mean
  EXPECT_EQ(m->choose("t", 1).expected_bytes, 50000u);  // again, from the remembered lookup
  m->delete_topic("t");
  EXPECT_EQ(m->choose("t", 1).expected_bytes, 1000u);  // the mean of what is hosted: other-0
  // A new topic's entry may take the memory t's held: t is still unknown, not u.
  m->create_partition("u", 0);
  m->append("u", 0, 7000);
  EXPECT_EQ(m->choose("t", 1).expected_bytes, 4000u);  // the mean of other-0 and u-0
  m->delete_topic("u");
  m->create_partition("t", 0);
  // t-0 holds nothing yet: the mean of the two hosted partitions.
  EXPECT_EQ(m->choose("t", 1).expected_bytes, 500u);
  m->append("t", 0, 3000);
  EXPECT_EQ(m->choose("t", 1).expected_bytes, 3000u);
}

TEST_F(LogManagerTest, IoErrorMarksTheDirOfflineAndTheNextOneIsTried) {
  use("partition");
  auto m = make();
  fs::remove_all(dirs_[0]);
  std::ofstream(dirs_[0]) << "not a directory";  // mkdir under it now fails with ENOTDIR
  PlacementResult r = m->create_partition("t", 0);
  EXPECT_EQ(fs::path(r.log_dir), dirs_[1]);
  auto d = by_dir(*m);
  EXPECT_EQ(d["d1"].error, StorageErrc::kDirUnavailable);
  EXPECT_NE(d["d1"].error_message.find("Not a directory"), std::string::npos);
  // Offline directories are no longer candidates.
  EXPECT_EQ(m->candidates("t", true, nullptr).size(), 2u);
}

TEST_F(LogManagerTest, AllDirsFailingIsAStorageErrorListingWhatWasTried) {
  use("partition");
  auto m = make();
  for (const auto& d : dirs_) {
    fs::remove_all(d);
    std::ofstream(d) << "x";
  }
  try {
    m->create_partition("t", 0);
    FAIL() << "placement should fail";
  } catch (const StorageError& e) {
    EXPECT_EQ(e.code(), StorageErrc::kDirUnavailable);
    EXPECT_EQ(std::string(e.what()), "No log directories available. Tried " + dirs_[0].string() +
                                         ", " + dirs_[1].string() + ", " + dirs_[2].string());
  }
  // And now that every directory is offline, the same message lists them all.
  try {
    m->create_partition("t", 1);
    FAIL() << "placement should fail";
  } catch (const StorageError& e) {
    EXPECT_EQ(e.code(), StorageErrc::kDirUnavailable);
    EXPECT_NE(std::string(e.what()).find("No log directories available. Tried"), std::string::npos);
  }
}

TEST_F(LogManagerTest, RememberedPreferredDirWinsOnceThenIsForgotten) {
  use("partition");
  auto m = make();
  m->remember_preferred_dir({"t", 0}, dirs_[2]);
  PlacementResult r = m->create_partition("t", 0);
  EXPECT_EQ(fs::path(r.log_dir), dirs_[2]);
  EXPECT_EQ(r.strategy, "preferred");
  m->delete_topic("t");
  EXPECT_EQ(fs::path(m->create_partition("t", 0).log_dir), dirs_[0]);
}

TEST_F(LogManagerTest, ExistingReplicaIsReturnedNotCreatedTwice) {
  use("partition");
  auto m = make();
  PlacementResult first = m->create_partition("t", 0);
  PlacementResult again = m->create_partition("t", 0);
  EXPECT_TRUE(first.created);
  EXPECT_FALSE(again.created);
  EXPECT_EQ(again.log_dir, first.log_dir);
  EXPECT_EQ(m->partition_count(), 1u);
}

TEST_F(LogManagerTest, CordonStrategySkipsCordonedDirs) {
  use("cordon");
  auto m = make();
  m->set_cordoned([&](const fs::path& d) { return d == dirs_[0]; });
  EXPECT_EQ(place(*m, "t", 4), (std::vector<int>{2, 3, 2, 3}));
  m->set_cordoned([](const fs::path&) { return true; });
  try {
    m->create_partition("u", 0);
    FAIL() << "placement should fail";
  } catch (const StorageError& e) {
    // Refused by the host before the strategy is asked (tests/storage/cordon_placement_test.cpp).
    EXPECT_EQ(e.code(), StorageErrc::kEveryDirCordoned);
    EXPECT_STREQ(e.what(), "Every online log directory is cordoned.");
  }
}

TEST_F(LogManagerTest, SpaceUnknownMakesSizeFallBackToPartitionCount) {
  use("size");
  probe_->set(dirs_[0], 1000 * kMB, 10 * kMB);
  probe_->fail(dirs_[1]);
  auto m = make();
  EXPECT_EQ(place(*m, "t", 3), (std::vector<int>{1, 2, 3}));
}

TEST_F(LogManagerTest, StartupScanRebuildsPartitionsAndSizes) {
  use("partition");
  {
    auto m = make();
    place(*m, "t", 4);
    m->append("t", 1, 12345);
    m->append("t", 3, 777);
  }
  fs::create_directories(dirs_[1] / layout::delete_dir("gone", 0, layout::random_hex_id()));
  auto m = make();
  EXPECT_EQ(m->partition_count(), 4u);
  auto d = by_dir(*m);
  ASSERT_EQ(d["d1"].partitions.size(), 2u);
  EXPECT_EQ(d["d1"].partitions[1].partition, "t-3");
  EXPECT_EQ(d["d1"].partitions[1].size, 777u);
  EXPECT_EQ(d["d2"].partitions[0].size, 12345u);
  EXPECT_EQ(fs::directory_iterator(dirs_[1]) != fs::directory_iterator(), true);
  for (const auto& e : fs::directory_iterator(dirs_[1])) {
    EXPECT_EQ(e.path().filename().string().find("-delete"), std::string::npos);
  }
  // Appends continue at the end of the rebuilt size.
  EXPECT_EQ(m->append("t", 1, 100), 12445u);
}

TEST_F(LogManagerTest, HostedPartitionsListsEveryTopicInOrderAndForgetsDeletedOnes) {
  use("partition");
  auto m = make();
  place(*m, "b", 2);
  place(*m, "a", 3);
  place(*m, "gone", 1);
  m->delete_topic("gone");
  const std::vector<TopicPartition> hosted = m->hosted_partitions();
  EXPECT_EQ(hosted,
            (std::vector<TopicPartition>{{"a", 0}, {"a", 1}, {"a", 2}, {"b", 0}, {"b", 1}}));
}

// kill -9 in the middle of an atomic write (io/durable_file) leaves its hidden temp file: one
// beside meta.properties, and one inside a move's future directory whose completion marker was
// never renamed into place. Startup ignores the first and discards the unmarked future with its
// temp file; every directory stays online and the partition exists once, in its source.
TEST_F(LogManagerTest, TempFilesOfAnInterruptedAtomicWriteAreHarmlessAtStartup) {
  use("partition");
  {
    auto m = make();
    EXPECT_EQ(place(*m, "t", 3), (std::vector<int>{1, 2, 3}));
    m->append("t", 0, 4096);
  }
  std::ofstream(dirs_[0] / ".meta.properties.Ab12Cd") << "version=1\nbroker.id=";
  const fs::path future = dirs_[1] / layout::future_dir("t", 0, layout::random_hex_id());
  fs::create_directories(future);
  fs::copy_file(dirs_[0] / "t-0" / layout::segment_file(0), future / layout::segment_file(0));
  std::ofstream(future / ("." + std::string(layout::kMoveCompleteMarker) + ".Xy12Zq")) << "";
  auto m = make();
  EXPECT_EQ(m->partition_count(), 3u);
  auto d = by_dir(*m);
  for (const auto& [name, dir] : d) EXPECT_EQ(dir.error, StorageErrc::kNone) << name;
  ASSERT_EQ(d["d1"].partitions.size(), 1u);
  EXPECT_EQ(d["d1"].partitions[0].partition, "t-0");
  EXPECT_EQ(d["d1"].partitions[0].size, 4096u);
  EXPECT_FALSE(fs::exists(future)) << "an unmarked future copy was kept";
  EXPECT_EQ(m->append("t", 0, 100), 4196u);
}

TEST_F(LogManagerTest, WritesMetaPropertiesAndRefusesAnotherBrokersDir) {
  use("partition");
  make(7);
  std::ifstream in(dirs_[0] / "meta.properties");
  std::string all((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(all.find("node.id=7\n"), std::string::npos);
  EXPECT_NE(all.find("directory.id="), std::string::npos);
  try {
    make(8);
    FAIL() << "startup should refuse the directory";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("Stored node id 7 doesn't match previous node id 8 in " +
                                              (dirs_[0] / "meta.properties").string() + ".",
                                          0),
              0u)
        << e.what();
  }
}

TEST_F(LogManagerTest, RejectsTopicNamesThatBreakKafkasRule) {
  use("partition");
  auto m = make();
  for (const std::string& bad :
       std::vector<std::string>{"", ".", "..", "a/b", "sp ace", std::string(250, 'x'), "ü"}) {
    try {
      m->create_partition(bad, 0);
      ADD_FAILURE() << "accepted topic name '" << bad << "'";
    } catch (const StorageError& e) {
      EXPECT_EQ(e.code(), StorageErrc::kInvalidTopicName) << bad;
    }
  }
  EXPECT_NO_THROW(m->create_partition(std::string(249, 'x'), 0));
  EXPECT_NO_THROW(m->create_partition("a.b_c-D9", 0));
}

TEST_F(LogManagerTest, ProduceToAnUnknownPartitionIsRefused) {
  use("partition");
  auto m = make();
  try {
    m->append("nope", 0, 10);
    FAIL();
  } catch (const StorageError& e) {
    EXPECT_EQ(e.code(), StorageErrc::kUnknownPartition);
  }
}

TEST_F(LogManagerTest, ProduceWritesFillerRecordsOfThePayloadPatternAsAKafkaLog) {
  use("partition");
  auto m = make();
  m->create_partition("t", 0);
  EXPECT_EQ(m->append("t", 0, 1000), 1000u);
  EXPECT_EQ(m->append("t", 0, 3001), 4001u);
  EXPECT_EQ(test::filler_log_problem(dirs_[0] / "t-0", "t", 0, 4001), "");
  const LogManager::LogOffsets offsets = m->log_offsets({"t", 0});
  EXPECT_EQ(offsets.log_start_offset, 0);
  EXPECT_GT(offsets.log_end_offset, 1) << "each Produce appends at least one record";
  // Fewer bytes than the smallest batch cannot be written as records.
  try {
    m->append("t", 0, 67);
    ADD_FAILURE() << "a 67-byte Produce was accepted";
  } catch (const StorageError& e) {
    EXPECT_EQ(e.code(), StorageErrc::kAppendTooShort);
    EXPECT_STREQ(e.what(),
                 "A Produce of 67 bytes is smaller than the smallest record batch (68 bytes).");
  }
  EXPECT_EQ(test::filler_log_problem(dirs_[0] / "t-0", "t", 0, 4001), "");
}

TEST_F(LogManagerTest, DeleteTopicRemovesItsDirsAndCounts) {
  use("partition");
  auto m = make();
  place(*m, "gone", 3);
  place(*m, "kept", 1);
  EXPECT_EQ(m->delete_topic("gone").deleted, 3u);
  EXPECT_EQ(m->partition_count(), 1u);
  EXPECT_FALSE(fs::exists(dirs_[0] / "gone-0"));
  EXPECT_TRUE(fs::exists(dirs_[0] / "kept-0") || fs::exists(dirs_[1] / "kept-0") ||
              fs::exists(dirs_[2] / "kept-0"));
  EXPECT_THROW(m->delete_topic("gone"), StorageError);
}

}  // namespace
}  // namespace lds
