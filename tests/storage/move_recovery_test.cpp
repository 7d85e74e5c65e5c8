// move_recovery_test.cpp: the startup scan against every state a crash, a failed disk or a hand
// can leave: interrupted moves at each step (this order's and the old one's), duplicates, stray
// entries; and the failures a move reports without taking a directory offline.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <map>

#include "file_bytes.h"
#include "filler_log.h"
#include "host_test_support.h"
#include "io/io_errors.h"
#include "io/log_layout.h"
#include "log_dir_listing.h"
#include "storage/log_manager.h"
#include "storage/segment_index.h"
#include "three_dir_test.h"
#include "tree_bytes.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

using test::LogCapture;

constexpr uint64_t kSize = 3 * 1000 * 1000 + 17;

class MoveRecoveryTest : public test::ThreeDirTest {
 protected:
  // t-0 in d1 with kSize bytes of the payload, and no broker running.
  void make_partition() {
    auto m = make();
    ASSERT_EQ(m->create_partition("t", 0).log_dir, dirs_[0].string());
    m->append("t", 0, kSize);
  }

  fs::path source() const { return dirs_[0] / "t-0"; }
  fs::path final_path() const { return dirs_[2] / "t-0"; }
  fs::path future() const { return dirs_[2] / layout::future_dir("t", 0, std::string(32, 'a')); }
  // A second destination's future copy, in d2.
  fs::path other_future() const {
    return dirs_[1] / layout::future_dir("t", 0, std::string(32, 'c'));
  }
  fs::path deleted() const { return dirs_[0] / layout::delete_dir("t", 0, std::string(32, 'b')); }

  // A copy of the source's first `size` bytes at `to`, marked complete as a move marks it.
  void copy_marked(const fs::path& to, uint64_t size = kSize) {
    fs::create_directories(to);
    fs::copy_file(source() / layout::segment_file(0), to / layout::segment_file(0));
    fs::resize_file(to / layout::segment_file(0), size);
    mark(to, "size=" + std::to_string(size) + "\n");
  }
  // Writes a completion marker naming the source into `dir`, with `size_line` as its size part.
  void mark(const fs::path& dir, const std::string& size_line) const {
    std::ofstream(dir / layout::kMoveCompleteMarker) << "source=" << source().string() << "\n"
                                                     << size_line << "topic=t\npartition=0\n";
  }
  std::vector<fs::path> roots() const { return {dirs_.begin(), dirs_.end()}; }

  // Every entry of every log dir, relative to the temp folder, without meta.properties, .lock and
  // each partition's lds.partition (written at every creation, copied by a move at its end).
  std::vector<std::string> listing() const { return test::log_dir_listing(dirs_, tmp_.path()); }

  // "" when `dir` holds exactly `size` bytes of t-0's Produce records.
  static std::string content_problem(const fs::path& dir, uint64_t size) {
    return test::filler_log_problem(dir, "t", 0, size);
  }

  void expect_served_once_from(const LogManager& m, size_t dir) {
    int copies = 0;
    for (const auto& d : m.describe()) {
      EXPECT_EQ(d.error, StorageErrc::kNone) << d.log_dir << ": " << d.error_message;
      for (const auto& p : d.partitions) {
        if (p.partition != "t-0") continue;
        ++copies;
        EXPECT_EQ(d.log_dir, dirs_[dir].string());
        EXPECT_EQ(p.size, kSize);
      }
    }
    EXPECT_EQ(copies, 1);
    // Exactly one directory of t-0 is left on disk, complete and unmarked.
    std::vector<std::string> want = {
        fs::relative(dirs_[dir] / "t-0", tmp_.path()).string(),
        fs::relative(dirs_[dir] / "t-0" / layout::segment_file(0), tmp_.path()).string()};
    EXPECT_EQ(listing(), want);
    EXPECT_EQ(content_problem(dirs_[dir] / "t-0", kSize), "");
  }
};

TEST_F(MoveRecoveryTest, TwoCopiesNoMoveExplainsRefuseTheStartWithKafkasSentenceAndDeleteNothing) {
  make_partition();
  fs::create_directories(dirs_[1] / "t-0");
  fs::copy_file(source() / layout::segment_file(0), dirs_[1] / "t-0" / layout::segment_file(0));
  std::ofstream(dirs_[1] / "t-0" / layout::segment_file(0), std::ios::app) << "acknowledged";
  const auto before = listing();
  try {
    make();
    FAIL() << "startup should refuse two copies of t-0";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "Duplicate log directories for t-0 are found in both " + source().string() + " and " +
                  (dirs_[1] / "t-0").string() +
                  ". It is likely because log directory failure happened while broker was "
                  "replacing current replica with future replica. Recover broker from this "
                  "failure by manually deleting one of the two directories for this partition. "
                  "It is recommended to delete the partition in the log directory that is known "
                  "to have failed recently.");
  }
  EXPECT_EQ(listing(), before);
  EXPECT_EQ(fs::file_size(dirs_[1] / "t-0" / layout::segment_file(0)), kSize + 12);
}

class MoveRecoveryStates;

// Each state an interrupted move can leave, with the copy that must win.
struct CrashState {
  const char* name;
  void (*make)(MoveRecoveryStates& t);
  size_t served_from;  // index of the log dir
};

class MoveRecoveryStates : public MoveRecoveryTest,
                           public ::testing::WithParamInterface<CrashState> {
 public:
  using MoveRecoveryTest::copy_marked;
  using MoveRecoveryTest::deleted;
  using MoveRecoveryTest::final_path;
  using MoveRecoveryTest::future;
  using MoveRecoveryTest::other_future;
  using MoveRecoveryTest::source;
};

TEST_P(MoveRecoveryStates, StartupFinishesOrDiscardsTheMoveAndServesOneCompleteCopy) {
  make_partition();
  GetParam().make(*this);
  auto m = make();
  expect_served_once_from(*m, GetParam().served_from);
  EXPECT_EQ(m->append("t", 0, 100), kSize + 100);  // appends continue at the end
}

INSTANTIATE_TEST_SUITE_P(
    EveryStep, MoveRecoveryStates,
    ::testing::Values(
        CrashState{"copy_unmarked",
                   [](MoveRecoveryStates& s) {
                     fs::create_directories(s.future());
                     std::ofstream(s.future() / layout::segment_file(0)) << "partial";
                   },
                   0},
        CrashState{"marker_written_source_in_place",
                   [](MoveRecoveryStates& s) { s.copy_marked(s.future()); }, 2},
        CrashState{"old_order_source_deleted_future_not_renamed",
                   [](MoveRecoveryStates& s) {
                     s.copy_marked(s.future());
                     fs::rename(s.source(), s.deleted());
                   },
                   2},
        CrashState{"future_renamed_marker_inside_source_in_place",
                   [](MoveRecoveryStates& s) { s.copy_marked(s.final_path()); }, 2},
        CrashState{"future_renamed_source_deleted_marker_inside",
                   [](MoveRecoveryStates& s) {
                     s.copy_marked(s.final_path());
                     fs::rename(s.source(), s.deleted());
                   },
                   2},
        CrashState{"marker_removed_delete_left",
                   [](MoveRecoveryStates& s) {
                     s.copy_marked(s.final_path());
                     fs::remove(s.final_path() / layout::kMoveCompleteMarker);
                     fs::rename(s.source(), s.deleted());
                   },
                   2},
        CrashState{"an_outgrown_marked_copy_and_a_current_one",
                   [](MoveRecoveryStates& s) {
                     s.copy_marked(s.other_future(), kSize - 100);
                     s.copy_marked(s.future());
                   },
                   2},
        CrashState{"marked_copy_fell_behind_its_source",
                   [](MoveRecoveryStates& s) { s.copy_marked(s.future(), kSize - 100); }, 0}),
    [](const auto& p) { return std::string(p.param.name); });

// The final name of a complete move copy is taken by a stray entry, and the source is already
// renamed aside (the old order's crash): refusing is the only safe answer, and nothing is deleted.
TEST_F(MoveRecoveryTest, AFinalNameTakenByAStrayEntryRefusesTheStartNamingBothPaths) {
  make_partition();
  copy_marked(future());
  fs::rename(source(), deleted());
  for (bool stray_dir : {false, true}) {
    SCOPED_TRACE(stray_dir ? "stray directory" : "stray file");
    if (stray_dir) {
      fs::create_directories(final_path());
    } else {
      std::ofstream(final_path()) << "stray";
    }
    const auto before = listing();
    try {
      make();
      FAIL() << "startup should refuse";
    } catch (const ConfigError& e) {
      EXPECT_EQ(std::string(e.what()),
                "The interrupted move of t-0 cannot be finished: " + final_path().string() +
                    " is taken by " + (stray_dir ? "a directory" : "a file") +
                    " that is not part of the move, so the complete copy " + future().string() +
                    " cannot be renamed there; move " + final_path().string() +
                    " out of the log directory and start again.");
    }
    EXPECT_EQ(listing(), before);
    fs::remove_all(final_path());
  }
  // With the stray entry gone, the move finishes.
  auto m = make();
  expect_served_once_from(*m, 2);
}

// A marker is the move's word that its copy is whole; the copy's segments must say the same. A
// copy short of its marker's size (bytes lost, or never written), or a marker without a size,
// refuses the start naming both copies, and nothing on disk changes.
TEST_F(MoveRecoveryTest, AMarkedCopyShortOfItsMarkersSizeRefusesTheStartAndChangesNothing) {
  make_partition();
  const fs::path marker = future() / layout::kMoveCompleteMarker;
  struct Case {
    const char* name;
    uint64_t copied;  // bytes of the source's segment in the copy (none: no segment file)
    std::string size_line;
    std::string what;
  };
  const std::string size_line = "size=" + std::to_string(kSize) + "\n";
  const std::vector<Case> cases = {
      {"no segment", UINT64_MAX, size_line,
       " is marked complete at " + std::to_string(kSize) + " bytes by " + marker.string() +
           " but its segments hold 0 bytes"},
      {"a quarter of the segment", kSize / 4, size_line,
       " is marked complete at " + std::to_string(kSize) + " bytes by " + marker.string() +
           " but its segments hold " + std::to_string(kSize / 4) + " bytes"},
      {"no size line", UINT64_MAX, "",
       " has a completion marker " + marker.string() +
           " without a size= line, so its segments' 0 bytes cannot be checked"},
      {"a size that is not a number", kSize, "size=3MiB\n",
       " has a completion marker " + marker.string() + " whose size=3MiB is not a number, so " +
           "its segments' " + std::to_string(kSize) + " bytes cannot be checked"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    fs::create_directories(future());
    if (c.copied != UINT64_MAX) {
      fs::copy_file(source() / layout::segment_file(0), future() / layout::segment_file(0));
      fs::resize_file(future() / layout::segment_file(0), c.copied);
    }
    mark(future(), c.size_line);
    const auto before = test::tree_bytes(roots());
    try {
      make();
      ADD_FAILURE() << "startup should refuse the short copy";
    } catch (const ConfigError& e) {
      EXPECT_EQ(std::string(e.what()),
                "The move copy " + future().string() + " of t-0" + c.what +
                    ", so it is not served and nothing was changed; remove " + future().string() +
                    " to serve its source " + source().string() + " (" + std::to_string(kSize) +
                    " bytes) again, and start again.");
    }
    EXPECT_EQ(test::tree_bytes(roots()), before);
    fs::remove_all(future());
  }
  // As the sentence says: with the copy removed, the source is served whole.
  auto m = make();
  expect_served_once_from(*m, 0);
}

// The copy already renamed to its final name, the marker still inside: a copy short of its marker
// is refused the same way, whether the source is in place, renamed aside, or gone.
TEST_F(MoveRecoveryTest, AShortCopyAtItsFinalNameRefusesNamingWhereTheSourceIs) {
  make_partition();
  copy_marked(final_path());
  fs::resize_file(final_path() / layout::segment_file(0), 1000);
  const std::string head = "The move copy " + final_path().string() +
                           " of t-0 is marked complete at " + std::to_string(kSize) + " bytes by " +
                           (final_path() / layout::kMoveCompleteMarker).string() +
                           " but its segments hold 1000 bytes, so it is not served and nothing "
                           "was changed; ";
  auto refusal = [&]() -> std::string {
    const auto before = test::tree_bytes(roots());
    try {
      make();
    } catch (const ConfigError& e) {
      EXPECT_EQ(test::tree_bytes(roots()), before);
      return e.what();
    }
    return "started";
  };
  EXPECT_EQ(refusal(), head + "remove " + final_path().string() + " to serve its source " +
                           source().string() + " (" + std::to_string(kSize) +
                           " bytes) again, and start again.");
  fs::rename(source(), deleted());
  EXPECT_EQ(refusal(), head + "to serve the move's source again, remove " + final_path().string() +
                           ", rename " + deleted().string() + " back to " + source().string() +
                           ", and start again.");
  fs::remove_all(deleted());
  EXPECT_EQ(refusal(), head + "no other copy of t-0 is found: replace " + final_path().string() +
                           " with a whole copy from another replica, or remove it to give the "
                           "partition up, and start again.");
}

// After a promotion whose source could not be renamed aside, appends go on into the new copy with
// the marker still inside: a copy grown past its marker's size is the partition, and is served.
TEST_F(MoveRecoveryTest, ACopyGrownPastItsMarkerAfterThePromotionIsServed) {
  make_partition();
  const fs::path saved = tmp_.path() / "source-at-the-marker.log";
  fs::copy_file(source() / layout::segment_file(0), saved);
  make()->append("t", 0, 5000);  // the appends that followed the promotion
  fs::create_directories(final_path());
  fs::rename(source() / layout::segment_file(0), final_path() / layout::segment_file(0));
  mark(final_path(), "size=" + std::to_string(kSize) + "\n");
  fs::rename(saved, source() / layout::segment_file(0));

  auto m = make();
  std::vector<std::pair<std::string, uint64_t>> served;
  for (const auto& d : m->describe()) {
    for (const auto& p : d.partitions) served.emplace_back(d.log_dir + "/" + p.partition, p.size);
  }
  EXPECT_EQ(
      served,
      (std::vector<std::pair<std::string, uint64_t>>{{dirs_[2].string() + "/t-0", kSize + 5000}}));
  EXPECT_EQ(content_problem(final_path(), kSize + 5000), "");
  EXPECT_FALSE(fs::exists(source()));
  EXPECT_FALSE(fs::exists(final_path() / layout::kMoveCompleteMarker));
}

TEST_F(MoveRecoveryTest, StrayEntriesAreLoggedOnceWithWhyAndTouchNothing) {
  make_partition();
  fs::create_directories(dirs_[0] / "foo");
  fs::create_directories(dirs_[0] / "bad-name-x");
  fs::create_directories(dirs_[1] / "t-00");
  std::ofstream(dirs_[1] / "t-1") << "a file named like a partition";
  std::ofstream(dirs_[1] / layout::kLockFile) << "";
  LogCapture log("lds.log_manager");
  auto m = make();
  const std::string text = log.text();
  auto count = [&](const std::string& s) {
    size_t n = 0;
    for (size_t at = text.find(s); at != std::string::npos; at = text.find(s, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(
      count("Ignoring " + (dirs_[0] / "foo").string() + " in log directory " + dirs_[0].string() +
            ": not a partition directory: the name is not <topic>-<partition>."),
      1u)
      << text;
  EXPECT_EQ(count("Ignoring " + (dirs_[0] / "bad-name-x").string() + " in log directory " +
                  dirs_[0].string() +
                  ": not a partition directory: \"x\" after the last '-' is not a partition "
                  "number."),
            1u)
      << text;
  EXPECT_EQ(
      count("Ignoring " + (dirs_[1] / "t-00").string() + " in log directory " + dirs_[1].string() +
            ": not a partition directory: partition number \"00\" has a leading zero."),
      1u)
      << text;
  EXPECT_EQ(
      count("Ignoring " + (dirs_[1] / "t-1").string() + " in log directory " + dirs_[1].string() +
            ": it is named like a partition, a move's future copy or a deletion, but is "
            "not a directory."),
      1u)
      << text;
  EXPECT_EQ(count(".lock"), 0u) << text;
  EXPECT_EQ(count("meta.properties"), 0u) << text;
  EXPECT_EQ(m->partition_count(), 1u);
  EXPECT_TRUE(fs::exists(dirs_[0] / "foo"));
  EXPECT_TRUE(fs::exists(dirs_[1] / "t-1"));

  // A stray file at the name of a new partition fails that creation alone; the dir stays online.
  try {
    m->create_partition("t", 1);  // partition counts send it to d2, where the file is
    FAIL() << "creation should fail";
  } catch (const StorageError& e) {
    EXPECT_EQ(e.code(), StorageErrc::kDirUnavailable);
    EXPECT_EQ(std::string(e.what()),
              "Cannot create t-1 in " + dirs_[1].string() + ": " + (dirs_[1] / "t-1").string() +
                  " already exists and is not a partition this broker hosts; move it out of the "
                  "log directory. The log directory stays online.");
  }
  for (const auto& d : m->describe()) EXPECT_EQ(d.error, StorageErrc::kNone) << d.log_dir;
  EXPECT_EQ(m->create_partition("u", 0).log_dir, dirs_[1].string());
}

TEST_F(MoveRecoveryTest, AMoveThatCannotFitIsRefusedUpFrontSayingBytesNeededAndFree) {
  make_partition();
  auto m = make();
  // d3 has 2 MiB usable, and 512 KiB of it promised to a partition expected to grow.
  probe_->set(dirs_[2], 1ull << 30, 2ull << 20);
  m->create_partition("r", 0, 512 * 1024);
  ASSERT_EQ(m->dir_index(m->create_partition("r", 1, 512 * 1024).log_dir), 2);
  LogManager::AlterResult r = m->alter_replica_log_dir({"t", 0}, dirs_[2].string());
  EXPECT_EQ(r.error, StorageErrc::kDirUnavailable);
  EXPECT_EQ(r.message, "Not enough space in " + dirs_[2].string() +
                           " to move t-0: 2.9 MiB needed, 1.5 MiB free.");
  EXPECT_EQ(m->moves_in_progress(), 0u);
  EXPECT_TRUE(m->failed_moves().empty());
  // Where it fits, it moves.
  r = m->alter_replica_log_dir({"t", 0}, dirs_[1].string());
  EXPECT_EQ(r.error, StorageErrc::kNone) << r.message;
}

TEST_F(MoveRecoveryTest, AMoveTakesTheSegmentIndexesAlong) {
  make_partition();
  auto m = make();
  const fs::path index = source() / "00000000000000000000.index";
  const fs::path times = source() / "00000000000000000000.timeindex";
  ASSERT_TRUE(fs::exists(index));
  const std::string offsets = test::file_bytes(index);
  ASSERT_GT(offsets.size(), 8u);
  const std::string time_entries = fs::exists(times) ? test::file_bytes(times) : "";
  ASSERT_EQ(m->alter_replica_log_dir({"t", 0}, dirs_[2].string()).error, StorageErrc::kNone);
  wait_for_moves(*m);
  EXPECT_TRUE(m->failed_moves().empty());
  EXPECT_EQ(test::file_bytes(final_path() / "00000000000000000000.index"), offsets);
  if (!time_entries.empty()) {
    EXPECT_EQ(test::file_bytes(final_path() / "00000000000000000000.timeindex"), time_entries);
  }
  // Appends go on indexing where the partition now is.
  m->append("t", 0, 64 * 1024);
  const uint64_t bytes = fs::file_size(final_path() / layout::segment_file(0));
  EXPECT_EQ(
      test::file_bytes(final_path() / "00000000000000000000.index"),
      segment_index::build(final_path(), 0, bytes, kDefaultIndexIntervalBytes).offset_entries);
}

TEST(MoveSpaceText, NamesTheBytesAsOperatorsRead) {
  EXPECT_EQ(not_enough_space_to_move("/d2", "t-0", 64ull << 20, 12ull << 20),
            "Not enough space in /d2 to move t-0: 64.0 MiB needed, 12.0 MiB free.");
  EXPECT_TRUE(is_out_of_space(ENOSPC));
  EXPECT_TRUE(is_out_of_space(EDQUOT));
  EXPECT_FALSE(is_out_of_space(EIO));
}

}  // namespace
}  // namespace lds
