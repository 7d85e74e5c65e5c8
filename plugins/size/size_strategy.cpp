// The size strategy (KIP-178): most room first, by projected fill fraction or projected free bytes,
// today or, with horizon.seconds, after that long at the current append rates.
#include "dir_ranking.h"
#include "error_text.h"
#include "hard_filters.h"
#include "host_log.h"
#include "option_table.h"
#include "strategy_skeleton.h"
#include <lds/logdir_strategy.h>

namespace {

using lds::plugin::add_candidates_at_horizon;
using lds::plugin::add_candidates_passing;
using lds::plugin::byte_count_field;
using lds::plugin::CandidateList;
using lds::plugin::choice_field;
using lds::plugin::dir_at;
using lds::plugin::keeps_free_bytes;
using lds::plugin::kProjectedFillScore;
using lds::plugin::Option;
using lds::plugin::rates_known;
using lds::plugin::seconds_field;
using lds::plugin::sort_by_fill;
using lds::plugin::sort_by_free_buckets;
using lds::plugin::sort_by_partition_count;
using lds::plugin::space_known;
using lds::plugin::StrategySpec;
using lds::plugin::WarnOnce;
using lds::plugin::write_error;
using lds::plugin::write_fill_scores;
using lds::plugin::write_order;

enum class Balance { kFill, kFree };
constexpr const char* kBalanceChoices[] = {"fill", "free"};

struct SizeOptions {
  Balance balance;
  uint64_t tie_bytes;        // free mode: projected free values this close rank as equal
  uint64_t keep_free_bytes;  // a dir left with less free space than this is ineligible
  uint64_t horizon_seconds;  // rank by the fill projected this far ahead; 0 = today
};

constexpr Option<SizeOptions> kOptions[] = {
    {"balance", "fill", choice_field<&SizeOptions::balance, kBalanceChoices>},
    {"tie.bytes", "0", byte_count_field<&SizeOptions::tie_bytes>},
    {"keep.free.bytes", "0", byte_count_field<&SizeOptions::keep_free_bytes>},
    {"horizon.seconds", "0", seconds_field<&SizeOptions::horizon_seconds>},
};

// Options are immutable after create; the warn-once latch is the only state rank changes.
struct SizeStrategy {
  SizeStrategy(const SizeOptions& o, const lds_host_api* h) : options(o), host(h) {}
  const SizeOptions options;
  const lds_host_api* const host;
  WarnOnce space_unknown_warning;
};

// KIP-178's fallback: without every directory's space the sizes cannot be compared, so the whole
// call ranks by partition count, and keep.free.bytes cannot be judged either.
lds_status rank_by_partition_count(SizeStrategy& strategy, const lds_dir& unknown,
                                   lds_rank_args& args) {
  strategy.space_unknown_warning.warn(
      strategy.host,
      "strategy size: the space of log directory '%s' is unknown (unreadable or total_bytes 0); "
      "ranking by partition count while any directory's space is unknown. This warning is "
      "logged once.",
      unknown.path != nullptr ? unknown.path : "(null)");
  CandidateList candidates(args.dir_count);
  add_candidates_passing(args, candidates);
  sort_by_partition_count(candidates);
  return write_order(candidates, &args);
}

lds_status rank_by_size(SizeStrategy& strategy, lds_rank_args& args) {
  for (uint32_t i = 0; i < args.dir_count; ++i) {
    if (!space_known(dir_at(args, i)))
      return rank_by_partition_count(strategy, dir_at(args, i), args);
  }
  const SizeOptions& options = strategy.options;
  // Growth needs every directory's rate; with any unknown (a 1.0 host, a fresh start) this call
  // ranks by today's sizes, exactly as horizon.seconds = 0 does.
  const uint64_t horizon = rates_known(args) ? options.horizon_seconds : 0;
  CandidateList candidates(args.dir_count);
  add_candidates_at_horizon(args, horizon, candidates, keeps_free_bytes(options.keep_free_bytes));
  if (candidates.empty()) {
    write_error(args.error, args.error_cap,
                "strategy size: no log directory would keep keep.free.bytes=%llu bytes free after "
                "placing a partition of %llu expected bytes",
                static_cast<unsigned long long>(options.keep_free_bytes),
                static_cast<unsigned long long>(args.request->expected_bytes));
    return LDS_ERR_NO_ELIGIBLE_DIR;
  }
  if (options.balance == Balance::kFill) {
    sort_by_fill(candidates);
  } else {
    sort_by_free_buckets(candidates, options.tie_bytes);
  }
  // The fill the order compares (balance=fill), or shows beside the free bytes (balance=free).
  write_fill_scores(candidates, &args);
  return write_order(candidates, &args);
}

constexpr StrategySpec<SizeOptions, SizeStrategy> kSizeStrategy = {
    .name = "size",
    .version = "1.0.0",
    .description =
        "Places a new partition in the log directory that will be least full once it "
        "is placed, counting reserved and expected bytes.",
    .capabilities = LDS_CAP_USES_SPACE | LDS_CAP_USES_RESERVATIONS | LDS_CAP_DETERMINISTIC,
    .options = kOptions,
    .rank = rank_by_size,
    .score_name = kProjectedFillScore,
};

}  // namespace

LDS_PLUGIN_STRATEGY(kSizeStrategy)
