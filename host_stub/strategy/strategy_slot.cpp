// strategy_slot.cpp: publishes the active strategy and runs one rank call with its per-call
// fallback.
#include "strategy/strategy_slot.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

#include "strategy/abi_rules.h"
#include "util/logging.h"

namespace lds {

void StrategySlot::publish(std::shared_ptr<const LoadedStrategy> next) {
  std::shared_ptr<const LoadedStrategy> previous = std::move(next);
  {
    MutexLock lock(current_mu_);
    current_.swap(previous);
  }
  if (previous) swaps_.fetch_add(1, std::memory_order_relaxed);
  // `previous` drops here; if no placement still holds it, the old plugin is unloaded now.
}

std::shared_ptr<std::atomic<uint64_t>> StrategySlot::placement_count(const std::string& name) {
  MutexLock lock(placements_mu_);
  auto& count = placements_[name];
  if (!count) count = std::make_shared<std::atomic<uint64_t>>(0);
  return count;
}

std::vector<std::pair<std::string, uint64_t>> StrategySlot::placements_by_strategy() const {
  std::vector<std::pair<std::string, uint64_t>> out;
  MutexLock lock(placements_mu_);
  for (const auto& [name, count] : placements_) {
    out.emplace_back(name, count->load(std::memory_order_relaxed));
  }
  return out;
}

uint32_t StrategySlot::builtin_order(std::span<const lds_dir> dirs, std::span<uint32_t> order) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < dirs.size(); ++i) {
    if ((dirs[i].flags & LDS_DIR_CORDONED) == 0) order[n++] = i;
  }
  std::stable_sort(order.begin(), order.begin() + n, [&](uint32_t a, uint32_t b) {
    return dirs[a].partition_count < dirs[b].partition_count;
  });
  return n;
}

RankOutcome StrategySlot::rank(std::shared_ptr<const LoadedStrategy> strategy,
                               const lds_request& request, std::span<const lds_dir> dirs,
                               std::span<uint32_t> order, uint32_t purpose,
                               std::span<double> scores) {
  RankOutcome out;
  out.strategy = std::move(strategy);
  const uint32_t n = static_cast<uint32_t>(dirs.size());
  if (out.strategy) {
    char error[256];
    error[0] = '\0';
    thread_local std::vector<double> scratch;  // allocates only while it grows
    if (scores.size() < n) {
      scratch.resize(n);
      scores = scratch;
    }
    std::fill_n(scores.begin(), n, std::numeric_limits<double>::quiet_NaN());
    lds_rank_args args = abi_rules::rank_args(&request, dirs.data(), n, order.data(), error,
                                              sizeof error, purpose, scores.data());
    const int32_t status = out.strategy->rank(&args);
    error[sizeof error - 1] = '\0';
    if (status == LDS_ERR_NO_ELIGIBLE_DIR) {
      out.status = status;
      out.message = error[0] != '\0' ? error : "no eligible log directory";
      return out;
    }
    if (status == LDS_OK) {
      if (abi_rules::ranking_is_valid(order.data(), args.order_len, n)) {
        out.order_len = args.order_len;
        return out;
      }
      out.refusal = abi_rules::ranking_problem(order.data(), args.order_len, n);
      out.message =
          "strategy " + out.strategy->name() + " returned an invalid ranking: " + out.refusal;
      if (purpose != LDS_RANK_PREVIEW) invalid_rankings_.fetch_add(1, std::memory_order_relaxed);
    } else {
      if (purpose != LDS_RANK_PREVIEW) plugin_errors_.fetch_add(1, std::memory_order_relaxed);
      out.refusal = "status " + std::to_string(status) + ": " +
                    (error[0] != '\0' ? std::string(error) : std::string("no reason given"));
      out.message = "strategy " + out.strategy->name() + " failed with " + out.refusal;
    }
    out.fell_back = true;
    if (purpose != LDS_RANK_PREVIEW) {
      fallbacks_.fetch_add(1, std::memory_order_relaxed);
      out.strategy->count_fallback();
      logger("lds.placement")
          ->warn("{} (generation {}); using the built-in partition-count order for {}-{}.",
                 out.message, out.strategy->generation(), request.topic, request.partition);
    }
  }
  out.order_len = builtin_order(dirs, order);
  if (out.order_len == 0) {
    out.status = LDS_ERR_NO_ELIGIBLE_DIR;
    out.message = n == 0 ? "no online log directories" : "all log directories are cordoned";
  } else {
    out.status = LDS_OK;
  }
  return out;
}

}  // namespace lds
