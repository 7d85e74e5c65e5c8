// The size strategy (KIP-178): most room first, by projected fill fraction or projected free bytes.
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
using lds::plugin::ReadByteCountOption;
using lds::plugin::ReadChoiceOption;
using lds::plugin::RejectNoCandidates;
using lds::plugin::RejectUnknownOption;
using lds::plugin::RunGuarded;
using lds::plugin::SortByFill;
using lds::plugin::SortByFreeBuckets;
using lds::plugin::SortByPartitionCount;
using lds::plugin::SpaceKnown;
using lds::plugin::ValidateRankArgs;
using lds::plugin::WarnOnce;
using lds::plugin::WriteError;
using lds::plugin::WriteOrder;

constexpr const char* kName = "size";
constexpr const char* kKnownOptions = "balance, tie.bytes, keep.free.bytes";
constexpr const char* kBalanceChoices[] = {"fill", "free"};

enum class Balance { kFill, kFree };

struct SizeOptions {
  Balance balance = Balance::kFill;
  uint64_t tie_bytes = 0;        // free mode: projected free values this close rank as equal
  uint64_t keep_free_bytes = 0;  // a dir left with less free space than this is ineligible
};

// Options are immutable after create; the warn-once latch is the only state rank changes.
struct SizeStrategy {
  SizeOptions options;
  const lds_host_api* host = nullptr;
  WarnOnce space_unknown_warning;
};

int32_t Create(const lds_host_api* host, const lds_config_entry* config, uint32_t config_count,
               void** instance, char* error, uint32_t error_cap) noexcept {
  return RunGuarded(kName, error, error_cap, [&]() -> int32_t {
    lds_status status =
        CheckCreateArguments(kName, config, config_count, instance, error, error_cap);
    if (status != LDS_OK) return status;
    SizeOptions options;
    for (uint32_t i = 0; i < config_count; ++i) {
      const lds_config_entry& entry = config[i];
      if (std::strcmp(entry.key, "balance") == 0) {
        size_t chosen = 0;
        status = ReadChoiceOption(entry, kBalanceChoices, &chosen, error, error_cap);
        options.balance = chosen == 0 ? Balance::kFill : Balance::kFree;
      } else if (std::strcmp(entry.key, "tie.bytes") == 0) {
        status = ReadByteCountOption(entry, &options.tie_bytes, error, error_cap);
      } else if (std::strcmp(entry.key, "keep.free.bytes") == 0) {
        status = ReadByteCountOption(entry, &options.keep_free_bytes, error, error_cap);
      } else {
        status = RejectUnknownOption(kName, entry.key, kKnownOptions, error, error_cap);
      }
      if (status != LDS_OK) return status;
    }
    auto* strategy = new SizeStrategy();
    strategy->options = options;
    strategy->host = host;
    *instance = strategy;
    return LDS_OK;
  });
}

void Destroy(void* instance) noexcept { delete static_cast<SizeStrategy*>(instance); }

// KIP-178's fallback: without every directory's space the sizes cannot be compared, so the whole
// call ranks by partition count, and keep.free.bytes cannot be judged either.
int32_t RankByPartitionCount(SizeStrategy& strategy, const lds_dir& unknown, lds_rank_args* args) {
  strategy.space_unknown_warning.Warn(
      strategy.host,
      "strategy size: the space of log directory '%s' is unknown (unreadable or total_bytes 0); "
      "ranking by partition count while any directory's space is unknown. This warning is "
      "logged once.",
      unknown.path != nullptr ? unknown.path : "(null)");
  CandidateList candidates(args->dir_count);
  for (uint32_t i = 0; i < args->dir_count; ++i) {
    candidates.Add(MakeCandidate(DirAt(*args, i), i, args->request->expected_bytes));
  }
  SortByPartitionCount(candidates);
  return WriteOrder(candidates, args);
}

int32_t Rank(void* instance, lds_rank_args* args) noexcept {
  const lds_status status = ValidateRankArgs(instance, args, kName);
  if (status != LDS_OK) return status;
  return RunGuarded(kName, args->error, args->error_cap, [&]() -> int32_t {
    auto& strategy = *static_cast<SizeStrategy*>(instance);
    const SizeOptions& options = strategy.options;
    if (args->dir_count == 0) return RejectNoCandidates(args, kName);
    for (uint32_t i = 0; i < args->dir_count; ++i) {
      if (!SpaceKnown(DirAt(*args, i)))
        return RankByPartitionCount(strategy, DirAt(*args, i), args);
    }
    const uint64_t expected = args->request->expected_bytes;
    CandidateList candidates(args->dir_count);
    for (uint32_t i = 0; i < args->dir_count; ++i) {
      const Candidate candidate = MakeCandidate(DirAt(*args, i), i, expected);
      if (candidate.projected_free >= options.keep_free_bytes) candidates.Add(candidate);
    }
    if (candidates.empty()) {
      WriteError(args->error, args->error_cap,
                 "strategy size: no log directory would keep keep.free.bytes=%llu bytes free after "
                 "placing a partition of %llu expected bytes",
                 static_cast<unsigned long long>(options.keep_free_bytes),
                 static_cast<unsigned long long>(expected));
      return LDS_ERR_NO_ELIGIBLE_DIR;
    }
    if (options.balance == Balance::kFill) {
      SortByFill(candidates);
    } else {
      SortByFreeBuckets(candidates, options.tie_bytes);
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
        "Places a new partition in the log directory that will be least full once it "
        "is placed, counting reserved and expected bytes.",
    .capabilities = LDS_CAP_USES_SPACE | LDS_CAP_USES_RESERVATIONS,
    .create = Create,
    .destroy = Destroy,
    .rank = Rank,
};

}  // namespace

const lds_strategy* lds_strategy_get(uint32_t host_abi_major, uint32_t /*host_abi_minor*/) {
  if (host_abi_major != LDS_ABI_MAJOR) return nullptr;
  return &kDescriptor;
}
