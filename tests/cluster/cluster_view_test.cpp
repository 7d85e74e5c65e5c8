// cluster_view_test.cpp: the cluster balancer's model of one broker, made from a DescribeLogDirs
// answer: offline dirs, dirs without sizes, future replicas as moves in flight, and used bytes
// as the replicas' own; and the --bootstrap-server list.
#include "cluster/cluster_view.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "byte_units.h"

namespace lds::cluster {
namespace {

using kafka::DescribeLogDirsResponse;

DescribeLogDirsResponse::Result dir(const std::string& path, int64_t total, int64_t usable) {
  DescribeLogDirsResponse::Result r;
  r.log_dir = path;
  r.total_bytes = total;
  r.usable_bytes = usable;
  return r;
}

TEST(ClusterView, DirsKeepTheirOrderStateAndRoom) {
  DescribeLogDirsResponse response;
  response.results.push_back(dir("/d0", 64 * kMiB, 40 * kMiB));
  auto offline = dir("/d1", -1, -1);
  offline.error_code = 56;  // KAFKA_STORAGE_ERROR
  response.results.push_back(offline);
  auto cordoned = dir("/d2", 256 * kMiB, 250 * kMiB);
  cordoned.is_cordoned = true;
  response.results.push_back(cordoned);
  response.results.push_back(dir("/d3", -1, -1));  // a broker before v4 sizes: unknown

  const BrokerView v = broker_view(7, "h:1", response);
  EXPECT_EQ(v.id, 7);
  ASSERT_EQ(v.model.dirs.size(), 4u);
  EXPECT_TRUE(v.model.dirs[0].online);
  EXPECT_EQ(v.model.dirs[0].total_bytes, uint64_t(64 * kMiB));
  EXPECT_EQ(v.model.dirs[0].free_bytes, uint64_t(40 * kMiB));
  EXPECT_FALSE(v.model.dirs[1].online);
  EXPECT_EQ(v.model.dirs[1].total_bytes, 0u);
  EXPECT_TRUE(v.model.dirs[2].cordoned);
  EXPECT_TRUE(v.model.dirs[3].online);
  EXPECT_EQ(v.model.dirs[3].total_bytes, 0u);  // takes no part in a plan
  EXPECT_EQ(v.dir_index("/d2"), 2);
  EXPECT_EQ(v.dir_index("/nowhere"), -1);
}

TEST(ClusterView, UsedBytesAreTheReplicasNotTheFilesystems) {
  // 24 MiB used on the filesystem, of which the replicas hold 10: the rest is an old copy Kafka
  // has not deleted yet, which no plan may count.
  DescribeLogDirsResponse response;
  auto d0 = dir("/d0", 64 * kMiB, 40 * kMiB);
  d0.topics.push_back({"t", {{0, 6 * kMiB, 0, false}, {1, 4 * kMiB, 0, false}}});
  response.results.push_back(d0);
  const BrokerView v = broker_view(1, "h:1", response);
  EXPECT_EQ(v.model.dirs[0].used_bytes, uint64_t(10 * kMiB));
  EXPECT_EQ(v.model.dirs[0].free_bytes, uint64_t(40 * kMiB));
  ASSERT_EQ(v.model.partitions.size(), 2u);
  EXPECT_FALSE(v.model.partitions[0].moving);
}

TEST(ClusterView, AFutureReplicaIsAMoveInFlight) {
  DescribeLogDirsResponse response;
  auto d0 = dir("/d0", 64 * kMiB, 50 * kMiB);
  d0.topics.push_back({"t", {{3, 8 * kMiB, 0, false}}});
  auto d1 = dir("/d1", 128 * kMiB, 125 * kMiB);
  d1.topics.push_back({"t", {{3, 3 * kMiB, 1200, true}}});
  response.results.push_back(d0);
  response.results.push_back(d1);

  const BrokerView v = broker_view(1, "h:1", response);
  ASSERT_EQ(v.model.partitions.size(), 1u);  // the future copy is not a second replica
  const BalancePartition& p = v.model.partitions[0];
  EXPECT_TRUE(p.moving);
  EXPECT_EQ(p.dir, 0u);
  EXPECT_EQ(p.moving_to, 1u);
  EXPECT_EQ(v.model.dirs[1].reserved_bytes, uint64_t(5 * kMiB));  // still to copy
  EXPECT_EQ(v.model.dirs[1].free_bytes, uint64_t(120 * kMiB));
  EXPECT_EQ(v.model.dirs[1].used_bytes, uint64_t(3 * kMiB));
  const auto f = v.futures.find(TopicPartition{"t", 3});
  ASSERT_NE(f, v.futures.end());
  EXPECT_EQ(f->second.from, 0u);
  EXPECT_EQ(f->second.to, 1u);
  EXPECT_EQ(f->second.copied, uint64_t(3 * kMiB));
  EXPECT_EQ(f->second.size, uint64_t(8 * kMiB));
  EXPECT_EQ(f->second.offset_lag, 1200);
  // Moving: at rest nowhere until its future replica is gone.
  EXPECT_FALSE(v.at_rest_in({"t", 3}, "/d0"));
  EXPECT_FALSE(v.at_rest_in({"t", 3}, "/d1"));
}

TEST(ClusterView, AReplicaWithNoFutureIsAtRestInItsDirOnly) {
  DescribeLogDirsResponse response;
  auto d0 = dir("/d0", 64 * kMiB, 50 * kMiB);
  d0.topics.push_back({"t", {{3, 8 * kMiB, 0, false}}});
  response.results.push_back(d0);
  response.results.push_back(dir("/d1", 64 * kMiB, 50 * kMiB));
  const BrokerView v = broker_view(1, "h:1", response);
  EXPECT_TRUE(v.at_rest_in({"t", 3}, "/d0"));
  EXPECT_FALSE(v.at_rest_in({"t", 3}, "/d1"));
  EXPECT_FALSE(v.at_rest_in({"t", 4}, "/d0"));  // not on this broker
}

TEST(ClusterView, BootstrapListsAreHostPortPairs) {
  EXPECT_EQ(kafka::bootstrap_addresses("a:1, b:2,[::1]:3"),
            (std::vector<std::string>{"a:1", "b:2", "[::1]:3"}));
  EXPECT_THROW(kafka::bootstrap_addresses(" , "), std::runtime_error);
  try {
    kafka::bootstrap_addresses("a:1,nohost");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "--bootstrap-server nohost is not HOST:PORT.");
  }
}

}  // namespace
}  // namespace lds::cluster
