// abi_rules.h: the rules abi/logdir_strategy.h states in prose, as code, in one place.
//
// The host's loader (strategy/strategy_plugin.cpp) and the conformance checker
// (conformance/lifecycle_checks.cpp and rank_call.cpp) both judge plugins by these functions, so a
// rule cannot drift between the two. This file needs only the ABI header and the C library: the
// checker links it without the rest of the host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <lds/logdir_strategy.h>

namespace lds::abi_rules {

// The descriptor size of ABI 1.0. Later minors append fields, so a larger struct_size is fine.
inline constexpr size_t kStrategyV1Size = offsetof(lds_strategy, rank) + sizeof(lds_strategy::rank);
// The lds_dir and lds_request of ABI 1.0, as a 1.0 host passes them (1.1 appended the rates).
inline constexpr size_t kDirV10Size =
    offsetof(lds_dir, topic_partition_count) + sizeof(lds_dir::topic_partition_count);
inline constexpr size_t kRequestV10Size =
    offsetof(lds_request, expected_bytes) + sizeof(lds_request::expected_bytes);

// A strategy name: [a-z0-9_]+. It is both the config value and the <name> of liblds_<name>.so.
bool valid_strategy_name(std::string_view name) noexcept;
// "liblds_<name>.so".
std::string plugin_file_name(std::string_view name);

// What is wrong with a descriptor, one phrase per fault ("abi_major is 2, not 1", "rank is NULL"),
// in field order; empty when it keeps the contract. The strings are read only when not NULL.
std::vector<std::string> descriptor_faults(const lds_strategy& descriptor);
// Whether the host can call the descriptor at all: 1.0 size, its major, and no NULL function.
bool descriptor_callable(const lds_strategy& descriptor) noexcept;

// The lds_rank_args of ABI 1.0 and 1.1, as such a host passes it (1.2 appended purpose and scores;
// on LP64 purpose lies in what was that struct's tail padding).
inline constexpr size_t kRankArgsV11Size = 64;
// The descriptor of ABI 1.2, which appended placed and score_name.
inline constexpr size_t kStrategyV12Size =
    offsetof(lds_strategy, score_name) + sizeof(lds_strategy::score_name);
// A score_name is a column heading: the host shows at most this many bytes of it, and the checker
// fails a longer one.
inline constexpr size_t kScoreNameMaxBytes = 64;
static_assert(sizeof(void*) != 8 || offsetof(lds_rank_args, purpose) < kRankArgsV11Size);

// The arguments of one rank call as a host of this ABI fills them: this header's struct sizes,
// `dirs` as plain lds_dir entries, room for dir_count indices in `order` and dir_count entries in
// `scores` (which the caller sets to NaN).
inline lds_rank_args rank_args(const lds_request* request, const lds_dir* dirs, uint32_t dir_count,
                               uint32_t* order, char* error, uint32_t error_cap, uint32_t purpose,
                               double* scores) noexcept {
  lds_rank_args args{};
  args.struct_size = sizeof(lds_rank_args);
  args.dir_count = dir_count;
  args.dir_stride = sizeof(lds_dir);
  args.request = request;
  args.dirs = dirs;
  args.order = order;
  args.error = error;
  args.error_cap = error_cap;
  args.purpose = purpose;
  args.scores = scores;
  return args;
}

// A ranking returned with LDS_OK: order_len in 1..dir_count, every index below dir_count, none
// twice. Returns "" when valid, else the phrase for the first fault ("index 3 appears twice").
std::string ranking_problem(const uint32_t* order, uint32_t order_len, uint32_t dir_count);
// The same test without building a message, and without allocating for up to 256 directories:
// the placement path's check.
bool ranking_is_valid(const uint32_t* order, uint32_t order_len, uint32_t dir_count) noexcept;

// Why an ELF file cannot be mapped safely, or "" when its loadable segments all lie inside the
// file (or it is no ELF file at all, which the dynamic loader reports itself). The loader maps
// segments without checking them against the file size, so a truncated plugin would fault
// (SIGBUS) inside dlopen instead of failing.
std::string truncated_elf_problem(const std::filesystem::path& file);

}  // namespace lds::abi_rules
