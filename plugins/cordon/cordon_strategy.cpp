// The cordon strategy (KIP-1066): skips cordoned log directories, ranks the rest by partitions or
// fill.
#include <cstring>
#include <new>

#include "dir_ranking.h"
#include "error_text.h"
#include "host_log.h"
#include <lds/logdir_strategy.h>
#include "strategy_options.h"

namespace {

using lds::plugin::Candidate;
using lds::plugin::CandidateList;
using lds::plugin::CheckCreateArguments;
using lds::plugin::DirAt;
using lds::plugin::MakeCandidate;
using lds::plugin::ReadChoiceOption;
using lds::plugin::RejectNoCandidates;
using lds::plugin::RejectUnknownOption;
using lds::plugin::RunGuarded;
using lds::plugin::SortByFill;
using lds::plugin::SortByPartitionCount;
using lds::plugin::SpaceKnown;
using lds::plugin::ValidateRankArgs;
using lds::plugin::WarnOnce;
using lds::plugin::WriteError;
using lds::plugin::WriteOrder;

constexpr const char* kName = "cordon";
constexpr const char* kKnownOptions = "order";
constexpr const char* kOrderChoices[] = {"partition", "size"};

enum class Order { kPartition, kSize };

// The order is immutable after create; the warn-once latch is the only state rank changes.
struct CordonStrategy {
  Order order = Order::kPartition;
  const lds_host_api* host = nullptr;
  WarnOnce space_unknown_warning;
};

int32_t Create(const lds_host_api* host, const lds_config_entry* config, uint32_t config_count,
               void** instance, char* error, uint32_t error_cap) noexcept {
  return RunGuarded(kName, error, error_cap, [&]() -> int32_t {
    lds_status status =
        CheckCreateArguments(kName, config, config_count, instance, error, error_cap);
    if (status != LDS_OK) return status;
    Order order = Order::kPartition;
    for (uint32_t i = 0; i < config_count; ++i) {
      const lds_config_entry& entry = config[i];
      if (std::strcmp(entry.key, "order") == 0) {
        size_t chosen = 0;
        status = ReadChoiceOption(entry, kOrderChoices, &chosen, error, error_cap);
        order = chosen == 0 ? Order::kPartition : Order::kSize;
      } else {
        status = RejectUnknownOption(kName, entry.key, kKnownOptions, error, error_cap);
      }
      if (status != LDS_OK) return status;
    }
    auto* strategy = new CordonStrategy();
    strategy->order = order;
    strategy->host = host;
    *instance = strategy;
    return LDS_OK;
  });
}

void Destroy(void* instance) noexcept { delete static_cast<CordonStrategy*>(instance); }

// order=size is the size strategy's fill rule, including its fallback: when an uncordoned
// directory's space is unknown, the call ranks by partition count and warns once. The space of
// cordoned directories does not matter, since they are never ranked.
void SortBySize(CordonStrategy& strategy, const lds_rank_args& args, CandidateList& candidates) {
  for (const Candidate& c : candidates) {
    const lds_dir& dir = DirAt(args, c.index);
    if (!SpaceKnown(dir)) {
      strategy.space_unknown_warning.Warn(
          strategy.host,
          "strategy cordon (order=size): the space of log directory '%s' is unknown (unreadable "
          "or total_bytes 0); ranking by partition count while any directory's space is "
          "unknown. This warning is logged once.",
          dir.path != nullptr ? dir.path : "(null)");
      SortByPartitionCount(candidates);
      return;
    }
  }
  SortByFill(candidates);
}

int32_t Rank(void* instance, lds_rank_args* args) noexcept {
  const lds_status status = ValidateRankArgs(instance, args, kName);
  if (status != LDS_OK) return status;
  return RunGuarded(kName, args->error, args->error_cap, [&]() -> int32_t {
    auto& strategy = *static_cast<CordonStrategy*>(instance);
    if (args->dir_count == 0) return RejectNoCandidates(args, kName);
    CandidateList candidates(args->dir_count);
    for (uint32_t i = 0; i < args->dir_count; ++i) {
      const lds_dir& dir = DirAt(*args, i);
      if ((dir.flags & LDS_DIR_CORDONED) != 0) continue;
      candidates.Add(MakeCandidate(dir, i, args->request->expected_bytes));
    }
    if (candidates.empty()) {
      WriteError(args->error, args->error_cap, "all log directories are cordoned");
      return LDS_ERR_NO_ELIGIBLE_DIR;
    }
    if (strategy.order == Order::kSize) {
      SortBySize(strategy, *args, candidates);
    } else {
      SortByPartitionCount(candidates);
    }
    return WriteOrder(candidates, args);
  });
}

// Capabilities are static: USES_SPACE and USES_RESERVATIONS are declared because order=size reads
// them, so a host must always supply space and reservations to this strategy.
constexpr lds_strategy kDescriptor = {
    .struct_size = sizeof(lds_strategy),
    .abi_major = LDS_ABI_MAJOR,
    .abi_minor = LDS_ABI_MINOR,
    .name = kName,
    .version = "1.0.0",
    .description =
        "Never places a new partition in a cordoned log directory and ranks the others "
        "by partition count or by projected fill.",
    .capabilities = LDS_CAP_HONORS_CORDON | LDS_CAP_USES_SPACE | LDS_CAP_USES_RESERVATIONS,
    .create = Create,
    .destroy = Destroy,
    .rank = Rank,
};

}  // namespace

const lds_strategy* lds_strategy_get(uint32_t host_abi_major, uint32_t /*host_abi_minor*/) {
  if (host_abi_major != LDS_ABI_MAJOR) return nullptr;
  return &kDescriptor;
}
