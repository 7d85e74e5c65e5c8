// move_protocol_test.cpp: a replica move's completion marker, written and read back, and its commit
// steps on real folders, each leaving the state the next start expects.
#include "storage/move_protocol.h"

#include <gtest/gtest.h>

#include <fstream>

#include "file_bytes.h"
#include "io/durable_file.h"
#include "io/log_layout.h"
#include "temp_dir.h"

namespace lds {
namespace {

namespace fs = std::filesystem;

TEST(MoveProtocol, TheMarkerNamesTheWholeTopicPartitionAndReadsBack) {
  const std::string topic(249, 'x');
  const std::string text = move_protocol::marker_text("/d1/" + topic + "-3", 42, topic, 3);
  EXPECT_EQ(text, "source=/d1/" + topic + "-3\nsize=42\ntopic=" + topic + "\npartition=3\n");
  const move_protocol::Marker m = move_protocol::parse_marker(text);
  EXPECT_EQ(m.source, "/d1/" + topic + "-3");
  EXPECT_EQ(m.size, 42u);
  EXPECT_EQ(m.size_text, "42");
  EXPECT_EQ(m.topic, topic);
  EXPECT_EQ(m.partition, 3);
}

TEST(MoveProtocol, AMarkerWrittenByHandReadsAsWhatItSays) {
  // An older marker (no topic, no partition), a size that is no number, lines in any order.
  const move_protocol::Marker old = move_protocol::parse_marker("size=7\nsource=/d1/t-0");
  EXPECT_EQ(old.size, 7u);
  EXPECT_EQ(old.source, "/d1/t-0");
  EXPECT_FALSE(old.topic);
  EXPECT_FALSE(old.partition);
  const move_protocol::Marker bad =
      move_protocol::parse_marker("# by hand\nsize=12 bytes\npartition=x\n");
  EXPECT_FALSE(bad.size);
  EXPECT_EQ(bad.size_text, "12 bytes");
  EXPECT_FALSE(bad.partition);
  EXPECT_EQ(bad.source, "");
  const move_protocol::Marker none = move_protocol::parse_marker("");
  EXPECT_FALSE(none.size_text);
}

TEST(MoveProtocol, EachStepLeavesWhatTheNextStartReads) {
  test::TempDir tmp;
  const fs::path d1 = tmp.path() / "d1", d2 = tmp.path() / "d2";
  const fs::path source = d1 / "t-0";
  const fs::path future = d2 / layout::future_dir("t", 0, std::string(32, 'a'));
  fs::create_directories(source);
  fs::create_directories(future);
  std::ofstream(source / layout::segment_file(0)) << "bytes";
  std::ofstream(future / layout::segment_file(0)) << "bytes";
  EXPECT_FALSE(move_protocol::read_marker(future));

  move_protocol::mark_complete(future, source.string(), 5, "t", 0);
  const std::optional<move_protocol::Marker> marked = move_protocol::read_marker(future);
  ASSERT_TRUE(marked);
  EXPECT_EQ(marked->size, 5u);
  EXPECT_EQ(marked->source, source.string());

  move_protocol::promote(future, d2 / "t-0");
  EXPECT_FALSE(fs::exists(future));
  EXPECT_TRUE(move_protocol::read_marker(d2 / "t-0"));  // the marker goes with the copy

  const fs::path del = move_protocol::retire(source, "t", 0);
  EXPECT_FALSE(fs::exists(source));
  EXPECT_EQ(del.parent_path(), d1);
  layout::Entry e = layout::parse_entry(del.filename().string());
  EXPECT_EQ(e.kind, layout::EntryKind::kDelete);
  EXPECT_EQ(test::file_bytes(del / layout::segment_file(0)), "bytes");

  move_protocol::finish(d2 / "t-0");
  EXPECT_FALSE(move_protocol::read_marker(d2 / "t-0"));
  move_protocol::finish(d2 / "t-0");  // a start that finds it gone already
  EXPECT_EQ(test::file_bytes(d2 / "t-0" / layout::segment_file(0)), "bytes");
}

TEST(MoveProtocol, AStepThatFailsNamesWhatItTouched) {
  test::TempDir tmp;
  const fs::path missing = tmp.path() / "d1" / "t-0.aaaa-future";
  fs::create_directories(tmp.path() / "d1");
  try {
    move_protocol::promote(missing, tmp.path() / "d1" / "t-0");
    FAIL() << "a copy that is not there cannot be promoted";
  } catch (const FileError& e) {
    EXPECT_EQ(e.operation(), "rename");
    EXPECT_EQ(e.path(), missing);
  }
  EXPECT_THROW(move_protocol::retire(tmp.path() / "d1" / "t-9", "t", 9), FileError);
}

}  // namespace
}  // namespace lds
