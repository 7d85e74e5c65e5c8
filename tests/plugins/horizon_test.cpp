// Growth-aware ranking (ABI 1.1): size's horizon.seconds, and cordon's with order=size, rank by the
// fill projected that far ahead at the directories' and the request's append rates, and fall back
// to today's ranking when a rate is unknown or the host is ABI 1.0.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "strategy_fixture.h"

namespace lds_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A directory appended to at `rate` bytes per second.
lds_dir Busy(const char* path, uint64_t total, uint64_t usable, uint64_t rate) {
  lds_dir dir = Dir(path, total, usable);
  dir.bytes_in_per_sec = rate;
  return dir;
}

lds_request Request(uint64_t expected_bytes_in_per_sec) {
  lds_request request{};
  request.struct_size = sizeof(lds_request);
  request.expected_bytes_in_per_sec = expected_bytes_in_per_sec;
  return request;
}

// /a is 40% full but takes 5 bytes a second; /b is 50% full and idle.
std::vector<lds_dir> BusyEmptierDisk() {
  return {Busy("/a", 1000, 600, 5), Busy("/b", 1000, 500, 0)};
}

struct Variant {
  const char* name;
  const char* plugin;
  Options options;
};

void PrintTo(const Variant& v, std::ostream* out) { *out << v.name; }

class EveryHorizonRanking : public ::testing::TestWithParam<Variant> {
 protected:
  Strategy Make(const char* horizon) const {
    Options options = GetParam().options;
    if (horizon != nullptr) options.emplace_back("horizon.seconds", horizon);
    return Strategy(GetParam().plugin, options);
  }
};

INSTANTIATE_TEST_SUITE_P(Variants, EveryHorizonRanking,
                         ::testing::Values(Variant{"size_fill", "size", {{"balance", "fill"}}},
                                           Variant{"size_free", "size", {{"balance", "free"}}},
                                           Variant{"cordon_size", "cordon", {{"order", "size"}}}),
                         [](const testing::TestParamInfo<Variant>& p) {
                           return std::string(p.param.name);
                         });

TEST_P(EveryHorizonRanking, WithoutAHorizonRanksByTodaysSpace) {
  const RankResult result = Make(nullptr).Rank(BusyEmptierDisk());
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(0, 1));
}

// In 100 s /a gains 500 bytes and ends 90% full; /b stays at 50%.
TEST_P(EveryHorizonRanking, AtAHorizonTheBusyDiskRanksByWhereItWillBe) {
  const RankResult result = Make("100").Rank(BusyEmptierDisk());
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(1, 0));
}

TEST_P(EveryHorizonRanking, AnUnknownRateFallsBackToTodaysRankingForThatCall) {
  std::vector<lds_dir> dirs = BusyEmptierDisk();
  dirs[1].flags |= LDS_DIR_RATE_UNKNOWN;
  const Strategy strategy = Make("100");
  const RankResult unknown = strategy.Rank(dirs);
  ASSERT_EQ(unknown.status, LDS_OK) << unknown.error;
  EXPECT_THAT(unknown.order, ElementsAre(0, 1));
  // The next call, with every rate known, looks ahead again.
  const RankResult known = strategy.Rank(BusyEmptierDisk());
  EXPECT_THAT(known.order, ElementsAre(1, 0));
}

// A host of ABI 1.0 sends 48-byte lds_dir entries and a 24-byte lds_request: no rates at all. Each
// is its own heap block of exactly that size, so a read past it is caught under ASan and Valgrind.
TEST_P(EveryHorizonRanking, UnderAnAbi10HostRanksByTodaysSpace) {
  const Strategy strategy = Make("100");
  const std::vector<lds_dir> dirs = BusyEmptierDisk();
  constexpr size_t kDir10 = offsetof(lds_dir, topic_partition_count) + sizeof(uint32_t);
  constexpr size_t kRequest10 = offsetof(lds_request, expected_bytes) + sizeof(uint64_t);
  const std::unique_ptr<unsigned char[]> entries(new unsigned char[kDir10 * dirs.size()]);
  for (size_t i = 0; i < dirs.size(); ++i) {
    lds_dir dir = dirs[i];
    dir.struct_size = kDir10;
    std::memcpy(entries.get() + i * kDir10, &dir, kDir10);
  }
  lds_request request = Request(1000);
  request.struct_size = kRequest10;
  request.topic = "orders";
  const std::unique_ptr<unsigned char[]> request_block(new unsigned char[kRequest10]);
  std::memcpy(request_block.get(), &request, kRequest10);
  uint32_t order[2] = {9, 9};
  char error[128] = "";
  lds_rank_args args{};
  args.struct_size = sizeof args;
  args.dir_count = 2;
  args.dir_stride = kDir10;
  args.request = reinterpret_cast<const lds_request*>(request_block.get());
  args.dirs = reinterpret_cast<const lds_dir*>(entries.get());
  args.order = order;
  args.error = error;
  args.error_cap = sizeof error;
  ASSERT_EQ(strategy.descriptor().rank(strategy.instance(), &args), LDS_OK) << error;
  ASSERT_EQ(args.order_len, 2u);
  EXPECT_THAT(order, ElementsAre(0, 1));
}

// The new partition's own expected rate grows every disk by the same bytes: in fill mode the small
// disk fills four times as fast, so the larger one wins although it is fuller today.
TEST(SizeHorizon, TheRequestsRateWeighsByCapacityInFillMode) {
  const std::vector<lds_dir> dirs = {Busy("/small", 1000, 500, 0), Busy("/large", 4000, 1900, 0)};
  const Strategy today("size", {{"horizon.seconds", "100"}});
  EXPECT_THAT(today.Rank(dirs, Request(0)).order, ElementsAre(0, 1));
  EXPECT_THAT(today.Rank(dirs, Request(5)).order, ElementsAre(1, 0));
}

// keep.free.bytes guards what placing the partition leaves today; growth only reorders.
TEST(SizeHorizon, KeepFreeBytesIsJudgedOnTodaysSpace) {
  const Strategy strategy("size", {{"horizon.seconds", "1000"}, {"keep.free.bytes", "100"}});
  const RankResult result = strategy.Rank(BusyEmptierDisk());
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(1, 0));
}

TEST(SizeHorizon, ProjectionsSaturateInsteadOfWrapping) {
  const std::vector<lds_dir> dirs = {Busy("/a", 1000, 600, UINT64_MAX), Busy("/b", 1000, 500, 1)};
  // /a's growth overflows 64 bits and saturates; /b's (10^12 bytes) does not.
  const Strategy strategy("size", {{"horizon.seconds", "1000000000000"}});
  const RankResult result = strategy.Rank(dirs, Request(0));
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(1, 0));
}

TEST(SizeHorizon, RejectsAHorizonThatIsNotAWholeNumberOfSeconds) {
  for (const char* plugin : {"size", "cordon"}) {
    for (const char* value : {"-1", "1.5", "1d", ""}) {
      const CreateResult result = TryCreate(plugin, {{"horizon.seconds", value}});
      EXPECT_EQ(result.status, LDS_ERR_INVALID_ARGUMENT) << plugin << " " << value;
      EXPECT_THAT(result.error, HasSubstr(std::string("invalid value '") + value +
                                          "' for option horizon.seconds: expected a number of "
                                          "seconds"));
    }
  }
}

TEST(CordonHorizon, CordonedDisksStayOutWhateverTheirGrowth) {
  std::vector<lds_dir> dirs = BusyEmptierDisk();
  dirs.push_back(Busy("/c", 1000, 900, 0));
  dirs[2].flags |= LDS_DIR_CORDONED;
  const Strategy strategy("cordon", {{"order", "size"}, {"horizon.seconds", "100"}});
  const RankResult result = strategy.Rank(dirs);
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(1, 0));
}

}  // namespace
}  // namespace lds_test
