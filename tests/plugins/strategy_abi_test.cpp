// The ABI edge of every shipped strategy: descriptor, version handshake, argument checks, error
// buffers, stride reading, create checks and concurrent rank calls.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <thread>

#include "strategy_fixture.h"

namespace lds_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class EveryStrategy : public ::testing::TestWithParam<std::string> {};

INSTANTIATE_TEST_SUITE_P(Shipped, EveryStrategy, ::testing::Values("partition", "size", "cordon"),
                         [](const auto& param_info) { return param_info.param; });

// Every shipped strategy's answer is a function of its inputs (LDS_CAP_DETERMINISTIC).
uint64_t ExpectedCapabilities(const std::string& name) {
  if (name == "size") return LDS_CAP_USES_SPACE | LDS_CAP_USES_RESERVATIONS | LDS_CAP_DETERMINISTIC;
  if (name == "cordon") {
    return LDS_CAP_HONORS_CORDON | LDS_CAP_USES_SPACE | LDS_CAP_USES_RESERVATIONS |
           LDS_CAP_DETERMINISTIC;
  }
  return LDS_CAP_DETERMINISTIC;
}

// A rank call with valid arguments that tests then break one at a time.
struct RankCall {
  explicit RankCall(const Strategy& s) : strategy(s) {
    request.struct_size = sizeof(lds_request);
    request.topic = "orders";
    args.struct_size = sizeof(lds_rank_args);
    args.dir_count = static_cast<uint32_t>(dirs.size());
    args.dir_stride = sizeof(lds_dir);
    args.request = &request;
    args.dirs = dirs.data();
    args.order = order;
    args.error = error;
    args.error_cap = sizeof error;
  }
  int32_t Run() { return strategy.descriptor().rank(strategy.instance(), &args); }

  const Strategy& strategy;
  std::vector<lds_dir> dirs = {Dir("/a", 1000, 500, 0, 2), Dir("/b", 1000, 900, 0, 1)};
  lds_request request{};
  uint32_t order[2] = {};
  char error[256] = "";
  lds_rank_args args{};
};

TEST_P(EveryStrategy, DescribesItself) {
  const StrategyPlugin plugin(GetParam());
  const lds_strategy& d = plugin.descriptor();
  EXPECT_EQ(d.struct_size, sizeof(lds_strategy));
  EXPECT_EQ(d.abi_major, LDS_ABI_MAJOR);
  EXPECT_EQ(d.abi_minor, LDS_ABI_MINOR);
  EXPECT_STREQ(d.name, GetParam().c_str());
  EXPECT_STREQ(d.version, "1.0.0");
  ASSERT_NE(d.description, nullptr);
  EXPECT_GT(std::strlen(d.description), 10u);
  EXPECT_EQ(d.capabilities, ExpectedCapabilities(GetParam()));
  EXPECT_NE(d.create, nullptr);
  EXPECT_NE(d.destroy, nullptr);
  EXPECT_NE(d.rank, nullptr);
}

TEST_P(EveryStrategy, RefusesOtherAbiMajorsAndServesNewerMinors) {
  const StrategyPlugin plugin(GetParam());
  EXPECT_EQ(plugin.entry_point()(0, 0), nullptr);
  EXPECT_EQ(plugin.entry_point()(LDS_ABI_MAJOR + 1, 0), nullptr);
  EXPECT_EQ(plugin.entry_point()(LDS_ABI_MAJOR, LDS_ABI_MINOR + 7), &plugin.descriptor());
}

TEST_P(EveryStrategy, DefaultOptionsWorkWithNullConfig) {
  const StrategyPlugin plugin(GetParam());
  void* instance = nullptr;
  char error[64] = "";
  ASSERT_EQ(plugin.descriptor().create(nullptr, nullptr, 0, &instance, error, sizeof error), LDS_OK)
      << error;
  plugin.descriptor().destroy(instance);
  plugin.descriptor().destroy(nullptr);
}

TEST_P(EveryStrategy, RejectsMalformedCreateCalls) {
  const StrategyPlugin plugin(GetParam());
  const lds_strategy& d = plugin.descriptor();
  void* instance = nullptr;
  char error[256] = "";
  EXPECT_EQ(d.create(nullptr, nullptr, 0, nullptr, error, sizeof error), LDS_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(error, HasSubstr("NULL instance"));
  EXPECT_EQ(d.create(nullptr, nullptr, 1, &instance, error, sizeof error),
            LDS_ERR_INVALID_ARGUMENT);
  const lds_config_entry null_value[] = {{"some.key", nullptr}};
  EXPECT_EQ(d.create(nullptr, null_value, 1, &instance, error, sizeof error),
            LDS_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(error, HasSubstr("some.key"));
  const lds_config_entry null_key[] = {{nullptr, "x"}};
  EXPECT_EQ(d.create(nullptr, null_key, 1, &instance, error, sizeof error),
            LDS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(instance, nullptr);
}

TEST_P(EveryStrategy, RejectsAKeyGivenTwice) {
  const char* key = GetParam() == "partition" ? "spread.topic"
                    : GetParam() == "size"    ? "balance"
                                              : "order";
  const char* value = GetParam() == "partition" ? "true" : GetParam() == "size" ? "free" : "size";
  const CreateResult result = TryCreate(GetParam(), {{key, value}, {key, value}});
  EXPECT_EQ(result.status, LDS_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(result.error, HasSubstr(std::string("option '") + key + "' is given more than once"));
}

TEST_P(EveryStrategy, RejectsUnknownOptionNamingKeyAndStrategy) {
  const CreateResult result = TryCreate(GetParam(), {{"foo", "1"}});
  EXPECT_EQ(result.status, LDS_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(result.error, HasSubstr("unknown option 'foo' for strategy " + GetParam()));
}

TEST_P(EveryStrategy, RejectsMalformedRankArgs) {
  const Strategy strategy(GetParam());
  const lds_strategy& d = strategy.descriptor();
  EXPECT_EQ(d.rank(strategy.instance(), nullptr), LDS_ERR_INVALID_ARGUMENT);

  auto expect_invalid = [](RankCall& call, const char* what) {
    call.args.order_len = 99;
    EXPECT_EQ(call.Run(), LDS_ERR_INVALID_ARGUMENT) << what;
    if (call.args.struct_size >= offsetof(lds_rank_args, error_cap) + sizeof(uint32_t)) {
      EXPECT_EQ(call.args.order_len, 0u) << what;
      EXPECT_GT(std::strlen(call.error), 0u) << what;
    }
  };
  {
    RankCall call(strategy);
    // Shorter than the fields of 1.0 (a 1.0 or 1.1 host's 64 bytes, without purpose and scores,
    // is a valid call).
    call.args.struct_size = offsetof(lds_rank_args, error_cap);
    expect_invalid(call, "short args");
  }
  {
    RankCall call(strategy);
    call.args.request = nullptr;
    expect_invalid(call, "NULL request");
  }
  {
    RankCall call(strategy);
    call.request.struct_size = 8;
    expect_invalid(call, "short request");
  }
  {
    RankCall call(strategy);
    call.args.dir_stride = sizeof(lds_dir) - 8;
    expect_invalid(call, "short stride");
  }
  {
    RankCall call(strategy);
    call.args.dir_stride = sizeof(lds_dir) + 1;
    expect_invalid(call, "misaligned stride");
  }
  {
    RankCall call(strategy);
    call.args.order = nullptr;
    expect_invalid(call, "NULL order");
  }
  {
    RankCall call(strategy);
    call.args.dirs = nullptr;
    expect_invalid(call, "NULL dirs");
  }
  {
    RankCall call(strategy);
    call.dirs[1].struct_size = 16;
    expect_invalid(call, "short dir");
  }
  {
    RankCall call(strategy);
    call.args.order_len = 99;
    EXPECT_EQ(d.rank(nullptr, &call.args), LDS_ERR_INVALID_ARGUMENT);
  }
  {
    RankCall call(strategy);
    call.args.dir_count = 0;
    call.args.dirs = nullptr;
    call.args.order = nullptr;
    EXPECT_EQ(call.Run(), LDS_ERR_NO_ELIGIBLE_DIR);
  }
  {
    RankCall call(strategy);
    EXPECT_EQ(call.Run(), LDS_OK) << call.error;
  }
}

// A newer host whose lds_dir has grown: the plugin must step by dir_stride.
TEST_P(EveryStrategy, ReadsDirsByStrideFromANewerHost) {
  struct NewerDir {
    lds_dir v1;
    uint64_t added_later[3];
  };
  const Strategy strategy(GetParam());
  NewerDir dirs[3] = {};
  const uint32_t counts[3] = {7, 1, 4};
  const uint64_t usable[3] = {100, 900, 500};
  for (int i = 0; i < 3; ++i) {
    dirs[i].v1 = Dir("/d", 1000, usable[i], 0, counts[i]);
    dirs[i].v1.struct_size = sizeof(NewerDir);
    for (uint64_t& field : dirs[i].added_later) field = ~0ull;
  }
  lds_request request{};
  request.struct_size = sizeof(lds_request);
  request.topic = "orders";
  uint32_t order[3] = {};
  char error[128] = "";
  lds_rank_args args{};
  args.struct_size = sizeof(lds_rank_args);
  args.dir_count = 3;
  args.dir_stride = sizeof(NewerDir);
  args.request = &request;
  args.dirs = &dirs[0].v1;
  args.order = order;
  args.error = error;
  args.error_cap = sizeof error;
  ASSERT_EQ(strategy.descriptor().rank(strategy.instance(), &args), LDS_OK) << error;
  ASSERT_EQ(args.order_len, 3u);
  // Fewest partitions and most space agree here: /b, then the 4-partition 500-free dir, then /a.
  EXPECT_THAT(order, ElementsAre(1, 2, 0));
}

TEST_P(EveryStrategy, RankIsSafeFromManyThreads) {
  const Strategy strategy(GetParam());
  std::vector<lds_dir> dirs;
  for (uint32_t i = 0; i < 80; ++i) {
    dirs.push_back(Dir("/d", 10000 + i, 1000 + (i * 7919) % 9000, (i * 31) % 500, (i * 13) % 17,
                       i % 3, i % 5 == 0 ? LDS_DIR_CORDONED : 0u));
  }
  const RankResult expected = strategy.Rank(dirs, 100);
  ASSERT_EQ(expected.status, LDS_OK) << expected.error;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int call = 0; call < 300; ++call) {
        const RankResult result = strategy.Rank(dirs, 100);
        ASSERT_EQ(result.status, LDS_OK);
        ASSERT_EQ(result.order, expected.order);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
}

TEST(StrategyErrorBuffer, TruncatesToCapacityAndAlwaysTerminates) {
  const Strategy strategy("cordon");
  const std::vector<lds_dir> dirs = {Dir("/a", 1000, 500, 0, 0, 0, LDS_DIR_CORDONED)};
  const RankResult cap8 = strategy.Rank(dirs, 0, 8);
  EXPECT_EQ(cap8.status, LDS_ERR_NO_ELIGIBLE_DIR);
  EXPECT_EQ(cap8.error, "all log");
  const RankResult cap1 = strategy.Rank(dirs, 0, 1);
  EXPECT_EQ(cap1.status, LDS_ERR_NO_ELIGIBLE_DIR);
  EXPECT_EQ(cap1.error, "");
  // error_cap 0 with a NULL buffer: the status still arrives and nothing is written.
  EXPECT_EQ(strategy.Rank(dirs, 0, 0).status, LDS_ERR_NO_ELIGIBLE_DIR);
}

TEST(StrategyErrorBuffer, LeavesBufferUntouchedWhenCapacityIsZero) {
  const StrategyPlugin plugin("size");
  char error[16];
  std::memset(error, 'x', sizeof error);
  void* instance = nullptr;
  const lds_config_entry bad[] = {{"nope", "1"}};
  EXPECT_EQ(plugin.descriptor().create(nullptr, bad, 1, &instance, error, 0),
            LDS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(error[0], 'x');
  EXPECT_EQ(plugin.descriptor().create(nullptr, bad, 1, &instance, nullptr, 0),
            LDS_ERR_INVALID_ARGUMENT);
}

TEST(StrategyErrorBuffer, TruncatesOnUtf8Boundaries) {
  const StrategyPlugin plugin("size");
  // "unknown option '" is 16 bytes; the key's first character is 2 bytes (U+00E9).
  const lds_config_entry bad[] = {{"\xC3\xA9t\xC3\xA9", "1"}};
  void* instance = nullptr;
  char error[32];
  for (uint32_t cap = 17; cap <= 21; ++cap) {
    std::memset(error, 'x', sizeof error);
    EXPECT_EQ(plugin.descriptor().create(nullptr, bad, 1, &instance, error, cap),
              LDS_ERR_INVALID_ARGUMENT);
    const size_t length = std::strlen(error);
    EXPECT_LT(length, cap);
    const std::string text(error, length);
    const std::string full = "unknown option '\xC3\xA9t\xC3\xA9'";
    // cap - 1 bytes fit; a cut inside U+00E9 drops its lead byte too.
    const size_t expected_length = cap <= 18 ? 16u : cap == 19 ? 18u : 19u;
    EXPECT_EQ(text, full.substr(0, expected_length)) << "cap " << cap;
  }
}

}  // namespace
}  // namespace lds_test
