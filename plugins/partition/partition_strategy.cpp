// The partition strategy (KIP-178's default, Kafka's rule): fewest partitions first.
#include <cstring>
#include <new>

#include "dir_ranking.h"
#include "error_text.h"
#include <lds/logdir_strategy.h>
#include "strategy_options.h"

namespace {

using lds::plugin::CandidateList;
using lds::plugin::CheckCreateArguments;
using lds::plugin::DirAt;
using lds::plugin::MakeCandidate;
using lds::plugin::ReadBooleanOption;
using lds::plugin::RejectNoCandidates;
using lds::plugin::RejectUnknownOption;
using lds::plugin::RunGuarded;
using lds::plugin::SortByPartitionCount;
using lds::plugin::SortByTopicThenPartitionCount;
using lds::plugin::ValidateRankArgs;
using lds::plugin::WriteOrder;

constexpr const char* kName = "partition";
constexpr const char* kKnownOptions = "spread.topic";

// Immutable after create, so rank may run on many threads at once.
struct PartitionStrategy {
  // Rank by the request topic's partitions first, keeping one topic spread across disks
  // (KAFKA-8465).
  bool spread_topic = false;
};

int32_t Create(const lds_host_api* /*host*/, const lds_config_entry* config, uint32_t config_count,
               void** instance, char* error, uint32_t error_cap) noexcept {
  return RunGuarded(kName, error, error_cap, [&]() -> int32_t {
    lds_status status =
        CheckCreateArguments(kName, config, config_count, instance, error, error_cap);
    if (status != LDS_OK) return status;
    PartitionStrategy options;
    for (uint32_t i = 0; i < config_count; ++i) {
      const lds_config_entry& entry = config[i];
      if (std::strcmp(entry.key, "spread.topic") == 0) {
        status = ReadBooleanOption(entry, &options.spread_topic, error, error_cap);
      } else {
        status = RejectUnknownOption(kName, entry.key, kKnownOptions, error, error_cap);
      }
      if (status != LDS_OK) return status;
    }
    *instance = new PartitionStrategy(options);
    return LDS_OK;
  });
}

void Destroy(void* instance) noexcept { delete static_cast<PartitionStrategy*>(instance); }

int32_t Rank(void* instance, lds_rank_args* args) noexcept {
  const lds_status status = ValidateRankArgs(instance, args, kName);
  if (status != LDS_OK) return status;
  return RunGuarded(kName, args->error, args->error_cap, [&]() -> int32_t {
    const auto& strategy = *static_cast<const PartitionStrategy*>(instance);
    if (args->dir_count == 0) return RejectNoCandidates(args, kName);
    CandidateList candidates(args->dir_count);
    for (uint32_t i = 0; i < args->dir_count; ++i) {
      candidates.Add(MakeCandidate(DirAt(*args, i), i, args->request->expected_bytes));
    }
    if (strategy.spread_topic) {
      SortByTopicThenPartitionCount(candidates);
    } else {
      SortByPartitionCount(candidates);
    }
    return WriteOrder(candidates, args);
  });
}

constexpr lds_strategy kDescriptor = {
    .struct_size = sizeof(lds_strategy),
    .abi_major = LDS_ABI_MAJOR,
    .abi_minor = LDS_ABI_MINOR,
    .name = kName,
    .version = "1.0.0",
    .description =
        "Places a new partition in the log directory with the fewest partitions, "
        "optionally counting the partition's own topic first.",
    .capabilities = 0,
    .create = Create,
    .destroy = Destroy,
    .rank = Rank,
};

}  // namespace

const lds_strategy* lds_strategy_get(uint32_t host_abi_major, uint32_t /*host_abi_minor*/) {
  if (host_abi_major != LDS_ABI_MAJOR) return nullptr;
  return &kDescriptor;
}
