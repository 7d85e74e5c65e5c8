// long_topic_test.cpp: a topic of Kafka's longest legal name (249 characters) through every
// name-making path: creation, a move (whose -future name is capped), deletion (-delete, capped),
// a restart, and startup recovery of a move interrupted with a capped name, where the topic comes
// from the completion marker and never from the cut name.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <thread>

#include "filler_log.h"
#include "host_test_support.h"
#include "io/log_layout.h"
#include "log_dir_listing.h"
#include "storage/log_manager.h"
#include "storage/move_protocol.h"
#include "three_dir_test.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

using test::LogCapture;

constexpr uint64_t kSize = 1000 * 1000 + 17;

// Two legal topics of 249 characters whose capped names share their whole prefix.
const std::string kTopicA = std::string(240, 'p') + "-topic-aa";
const std::string kTopicB = std::string(240, 'p') + "-topic-bb";

class LongTopicTest : public test::ThreeDirTest {
 protected:
  // Every entry of every log dir (recursively), without meta.properties, .lock and
  // each partition's lds.partition (written at every creation, copied by a move at its end).
  std::vector<std::string> listing() const { return test::log_dir_listing(dirs_, tmp_.path()); }

  static void expect_all_online(const LogManager& m) {
    for (const auto& d : m.describe()) {
      EXPECT_EQ(d.error, StorageErrc::kNone) << d.log_dir << ": " << d.error_message;
    }
  }

  // A complete copy of `source` at `to`, marked as a move marks it, for (topic, 0).
  static void copy_marked(const fs::path& source, const fs::path& to, const std::string& topic) {
    fs::create_directories(to);
    fs::copy_file(source / layout::segment_file(0), to / layout::segment_file(0));
    std::ofstream(to / layout::kMoveCompleteMarker)
        << move_protocol::marker_text(source.string(), kSize, topic, 0);
  }
};

TEST_F(LongTopicTest, A249CharacterTopicIsMovedDeletedAndStaysGoneAfterARestart) {
  ASSERT_EQ(layout::topic_name_problem(kTopicA), "");
  {
    auto m = make();
    ASSERT_EQ(m->create_partition(kTopicA, 0).log_dir, dirs_[0].string());
    m->append(kTopicA, 0, kSize);
    const auto r = m->alter_replica_log_dir({kTopicA, 0}, dirs_[2].string());
    ASSERT_EQ(r.error, StorageErrc::kNone) << r.message;
    wait_for_moves(*m);
    EXPECT_TRUE(m->failed_moves().empty());
    EXPECT_EQ(test::filler_log_problem(dirs_[2] / (kTopicA + "-0"), kTopicA, 0, kSize), "");
    EXPECT_EQ(listing(),
              (std::vector<std::string>{
                  fs::relative(dirs_[2] / (kTopicA + "-0"), tmp_.path()).string(),
                  fs::relative(dirs_[2] / (kTopicA + "-0") / layout::segment_file(0), tmp_.path())
                      .string()}));
    expect_all_online(*m);
    EXPECT_EQ(m->delete_topic(kTopicA).deleted, 1u);
    expect_all_online(*m);
    EXPECT_EQ(listing(), std::vector<std::string>{});
  }
  auto m = make();
  EXPECT_TRUE(m->hosted_partitions().empty());
  EXPECT_EQ(listing(), std::vector<std::string>{});
  expect_all_online(*m);
}

TEST_F(LongTopicTest, ANameThatCannotBeMadeFailsThatCreationAloneNamingThePath) {
  auto m = make();
  // 249 characters, "-" and six digits: 256 bytes, one past what a directory entry can hold.
  const fs::path path = dirs_[0] / (kTopicA + "-100000");
  try {
    m->create_partition(kTopicA, 100000);
    FAIL() << "the creation should fail";
  } catch (const StorageError& e) {
    EXPECT_EQ(e.code(), StorageErrc::kDirUnavailable);
    EXPECT_EQ(std::string(e.what()),
              "Cannot create " + kTopicA + "-100000 in " + dirs_[0].string() + ": the name " +
                  path.string() +
                  " is too long for the filesystem (File name too long); the log directory stays "
                  "online.");
  }
  expect_all_online(*m);
  EXPECT_EQ(m->create_partition(kTopicA, 99999).log_dir, dirs_[0].string());
}

// kill -9 after the marker was written in a future with a capped name: the marker's topic
// decides, so the partition is served under its whole name from the destination.
TEST_F(LongTopicTest, RecoveryFinishesAMoveWithACappedNameUnderTheTopicTheMarkerNames) {
  std::map<std::string, fs::path> source;
  {
    auto m = make();
    for (const auto& topic : {kTopicA, kTopicB}) {
      source[topic] = fs::path(m->create_partition(topic, 0).log_dir) / (topic + "-0");
      ASSERT_NE(source[topic].parent_path(), dirs_[2]);
      m->append(topic, 0, kSize);
    }
  }
  // Both copies in d3, their names cut to the same 213-character prefix.
  const fs::path future_a = dirs_[2] / layout::future_dir(kTopicA, 0, std::string(32, 'a'));
  const fs::path future_b = dirs_[2] / layout::future_dir(kTopicB, 0, std::string(32, 'b'));
  ASSERT_EQ(future_a.filename().string().substr(0, 213),
            future_b.filename().string().substr(0, 213));
  copy_marked(source[kTopicA], future_a, kTopicA);
  copy_marked(source[kTopicB], future_b, kTopicB);

  auto m = make();
  expect_all_online(*m);
  EXPECT_EQ(m->hosted_partitions(), (std::vector<TopicPartition>{{kTopicA, 0}, {kTopicB, 0}}));
  std::vector<std::string> want;
  for (const auto& topic : {kTopicA, kTopicB}) {
    const fs::path served = dirs_[2] / (topic + "-0");
    EXPECT_EQ(test::filler_log_problem(served, topic, 0, kSize), "") << topic;
    want.push_back(fs::relative(served, tmp_.path()).string());
    want.push_back(fs::relative(served / layout::segment_file(0), tmp_.path()).string());
  }
  std::sort(want.begin(), want.end());
  EXPECT_EQ(listing(), want);
  EXPECT_EQ(m->append(kTopicB, 0, 100), kSize + 100);
}

TEST_F(LongTopicTest, AMarkerThatDisagreesWithItsNameIsNotTrustedAndTheSourceStaysServed) {
  {
    auto m = make();
    ASSERT_EQ(m->create_partition(kTopicA, 0).log_dir, dirs_[0].string());
    m->append(kTopicA, 0, kSize);
  }
  // A copy whose name was made for topic A, and whose marker names an unrelated topic.
  const fs::path future = dirs_[2] / layout::future_dir(kTopicA, 0, std::string(32, 'a'));
  copy_marked(dirs_[0] / (kTopicA + "-0"), future, "other");
  LogCapture log("lds.log_manager");
  auto m = make();
  EXPECT_NE(log.text().find("Discarding the move copy " + future.string() +
                            ": its marker cannot be trusted"),
            std::string::npos)
      << log.text();
  EXPECT_EQ(m->hosted_partitions(), (std::vector<TopicPartition>{{kTopicA, 0}}));
  EXPECT_FALSE(fs::exists(future));
  EXPECT_EQ(test::filler_log_problem(dirs_[0] / (kTopicA + "-0"), kTopicA, 0, kSize), "");
}

// A -delete directory whose name is cut belongs to no partition that can be named: it is
// removed once every log dir is online, and kept while one is offline.
TEST_F(LongTopicTest, ACappedDeleteDirectoryIsRemovedOnlyWithEveryDirOnline) {
  { make(); }
  const fs::path del = dirs_[1] / layout::delete_dir(kTopicA, 0, std::string(32, 'd'));
  fs::create_directories(del);
  std::ofstream(del / layout::segment_file(0)) << "old";
  // d1 cannot be used: a file stands at its path.
  fs::rename(dirs_[0], tmp_.path() / "d1.aside");
  std::ofstream(dirs_[0]) << "not a directory";
  {
    auto m = make();
    EXPECT_NE(m->describe()[0].error, StorageErrc::kNone);
    EXPECT_TRUE(fs::exists(del)) << "kept while a log dir is offline";
  }
  EXPECT_TRUE(fs::exists(del));
  fs::remove(dirs_[0]);
  fs::rename(tmp_.path() / "d1.aside", dirs_[0]);
  auto m = make();
  EXPECT_FALSE(fs::exists(del));
  expect_all_online(*m);
}

}  // namespace
}  // namespace lds
