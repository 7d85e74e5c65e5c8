// log_layout_test.cpp: the on-disk names of a move's copy and of a deletion fit in 255 bytes for
// any legal topic, and the lds.partition text that keeps a partition's expected size.
#include "io/log_layout.h"

#include <gtest/gtest.h>

#include <string>

namespace lds::layout {
namespace {

const std::string kId(32, 'a');

// Kafka, storage/src/main/java/org/apache/kafka/storage/internals/log/LocalLog.java,
// logDirNameWithSuffixCappedLength: the suffix "-" + partition + "." + uniqueId + suffix is kept
// whole, the topic cut to Math.min(topic.length(), 255 - fullSuffix.length()).
// Appended: GCC 12 at -O3 reports a false -Wrestrict on `"-" + std::to_string(partition)`.
std::string kafka_full_suffix(int32_t partition, const std::string& suffix) {
  std::string full_suffix = "-";
  full_suffix.append(std::to_string(partition)).append(1, '.').append(kId).append(suffix);
  return full_suffix;
}

std::string kafka_capped(const std::string& topic, int32_t partition, const std::string& suffix) {
  const std::string full_suffix = kafka_full_suffix(partition, suffix);
  const size_t prefix = std::min(topic.size(), 255 - full_suffix.size());
  return topic.substr(0, prefix) + full_suffix;
}

TEST(LogLayout, FutureAndDeleteNamesOfA249CharacterTopicFitIn255Bytes) {
  const std::string topic(249, 'x');
  ASSERT_EQ(topic_name_problem(topic), "");
  for (int32_t partition : {0, 7, 12345, 2147483647}) {
    SCOPED_TRACE(partition);
    const std::string future = future_dir(topic, partition, kId);
    const std::string deleted = delete_dir(topic, partition, kId);
    EXPECT_EQ(future.size(), 255u);
    EXPECT_EQ(deleted.size(), 255u);
    EXPECT_EQ(deleted, kafka_capped(topic, partition, "-delete"));
    EXPECT_EQ(future, kafka_capped(topic, partition, "-future"));
    EXPECT_TRUE(future.ends_with(kafka_full_suffix(partition, "-future")));
    EXPECT_TRUE(may_be_capped(future));
    // Still read as a future or a deletion, of a topic that is a prefix of the real one.
    const Entry e = parse_entry(future);
    EXPECT_EQ(e.kind, EntryKind::kFuture);
    EXPECT_EQ(e.partition, partition);
    EXPECT_TRUE(topic.starts_with(e.topic));
    EXPECT_LT(e.topic.size(), topic.size());
    EXPECT_EQ(parse_entry(deleted).kind, EntryKind::kDelete);
  }
}

// Kafka's Topic.hasCollision: '.' and '_' are the same character in metric names.
TEST(LogLayout, TopicNamesCollideWhenTheyDifferOnlyInDotsAgainstUnderscores) {
  EXPECT_TRUE(topic_names_collide("a.b", "a_b"));
  EXPECT_TRUE(topic_names_collide("x_y.z", "x.y_z"));
  EXPECT_FALSE(topic_names_collide("a.b", "a.b"));
  EXPECT_FALSE(topic_names_collide("a.b", "a-b"));
  EXPECT_FALSE(topic_names_collide("a.b", "a.bc"));
}

TEST(LogLayout, NamesThatFitKeepTheWholeTopic) {
  EXPECT_EQ(future_dir("t", 0, kId), "t-0." + kId + "-future");
  EXPECT_EQ(delete_dir("t", 3, kId), "t-3." + kId + "-delete");
  EXPECT_FALSE(may_be_capped(future_dir("t", 0, kId)));
  // The longest topic whose names are not cut: 255 - len("-0.<32 hex>-future") = 213.
  const std::string topic(213, 'y');
  EXPECT_EQ(future_dir(topic, 0, kId), topic + "-0." + kId + "-future");
  EXPECT_EQ(future_dir(topic + "z", 0, kId), topic + "-0." + kId + "-future");
}

TEST(LogLayout, PartitionMetadataRoundTripsAndNamesWhatIsWrong) {
  EXPECT_EQ(partition_metadata_text(33554432), "expected.bytes=33554432\n");
  EXPECT_EQ(parse_partition_metadata(partition_metadata_text(33554432)).expected_bytes, 33554432u);
  EXPECT_EQ(parse_partition_metadata(partition_metadata_text(33554432)).problem, "");
  EXPECT_EQ(parse_partition_metadata("# written by hand\nexpected.bytes=5\n").expected_bytes, 5u);
  // The replica's identity, when it has one; a file without it (written before) reads as none.
  const std::string with_id = partition_metadata_text(0, "J8aAPcfLQt2bqs1JT_rMgQ");
  EXPECT_EQ(with_id, "expected.bytes=0\nreplica.id=J8aAPcfLQt2bqs1JT_rMgQ\n");
  EXPECT_EQ(parse_partition_metadata(with_id).replica_id, "J8aAPcfLQt2bqs1JT_rMgQ");
  EXPECT_EQ(parse_partition_metadata(with_id).problem, "");
  EXPECT_EQ(parse_partition_metadata("replica.id=a-_9\nexpected.bytes=7\n").expected_bytes, 7u);
  EXPECT_EQ(parse_partition_metadata("expected.bytes=7\n").replica_id, "");
  struct Bad {
    const char* text;
    const char* problem;
  };
  for (const Bad& b : {Bad{"", "it has no expected.bytes=<bytes> line"},
                       Bad{"expected.bytes=lots\n", "line 1 is not expected.bytes=<bytes>"},
                       Bad{"expected.bytes=\n", "line 1 is not expected.bytes=<bytes>"},
                       Bad{"expected.bytes=-1\n", "line 1 is not expected.bytes=<bytes>"},
                       Bad{"\nsize=12\n", "line 2 is not expected.bytes=<bytes>"},
                       Bad{"expected.bytes=1\nexpected.bytes=2\n",
                           "line 2 is not the only expected.bytes=<bytes>"},
                       Bad{"expected.bytes=1\nreplica.id=\n", "line 2 is not replica.id=<id>"},
                       Bad{"expected.bytes=1\nreplica.id=a b\n", "line 2 is not replica.id=<id>"},
                       Bad{"replica.id=a\nreplica.id=b\nexpected.bytes=1\n",
                           "line 2 is not the only replica.id=<id>"},
                       Bad{"replica.id=a\n", "it has no expected.bytes=<bytes> line"}}) {
    SCOPED_TRACE(b.text);
    const PartitionMetadata m = parse_partition_metadata(b.text);
    EXPECT_EQ(m.problem, b.problem);
    EXPECT_EQ(m.expected_bytes, 0u);
    EXPECT_EQ(m.replica_id, "");
  }
}

}  // namespace
}  // namespace lds::layout
