// rank_call.cpp: calling rank with canaried buffers and judging everything the plugin wrote.
#include "conformance/rank_call.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "core/abi_rules.h"

namespace lds::conformance_detail {
namespace {

// order gets kOrderSlack entries past dir_count, and order and order_len start as kOrderCanary, so
// a write past dir_count or an order_len left unset is visible.
constexpr uint32_t kOrderCanary = 0xA5A5A5A5u;
constexpr size_t kOrderSlack = 8;

}  // namespace

std::string describe(const RankCall& outcome) {
  if (outcome.status == LDS_OK) {
    std::string text = "order [";
    for (size_t i = 0; i < outcome.order.size(); ++i) {
      text += (i ? "," : "") + std::to_string(outcome.order[i]);
    }
    return text + "]";
  }
  return "status " + std::to_string(outcome.status) + " " + quote(outcome.error);
}

RankCall call_rank(const lds_strategy& strategy, void* instance, const CandidateSet& set,
                   DirLayout layout, uint32_t error_cap) {
  const auto count = static_cast<uint32_t>(set.dirs.size());
  std::vector<lds_dir> plain = set.dirs;
  for (uint32_t i = 0; i < count; ++i) plain[i].path = set.paths[i].c_str();
  std::vector<WideDir> wide;
  if (layout == DirLayout::kWide) {
    for (const lds_dir& dir : plain) {
      WideDir entry{};
      entry.dir = dir;
      entry.dir.struct_size = sizeof(WideDir);
      entry.later_a = 0xDEADBEEFDEADBEEFull;
      entry.later_b = 0xFEEDFACEu;
      std::memset(entry.later_c, 0x5A, sizeof entry.later_c);
      wide.push_back(entry);
    }
  }
  lds_request request = set.request;
  request.topic = set.topic.c_str();

  const void* dirs_bytes = layout == DirLayout::kWide ? static_cast<const void*>(wide.data())
                                                      : static_cast<const void*>(plain.data());
  const size_t stride = layout == DirLayout::kWide ? sizeof(WideDir) : sizeof(lds_dir);
  const std::vector<char> dirs_before(static_cast<const char*>(dirs_bytes),
                                      static_cast<const char*>(dirs_bytes) + stride * count);
  const lds_request request_before = request;

  std::vector<uint32_t> order(count + kOrderSlack, kOrderCanary);
  ErrorBuffer error(error_cap);
  lds_rank_args args{};
  args.struct_size = sizeof(lds_rank_args);
  args.dir_count = count;
  args.dir_stride = static_cast<uint32_t>(stride);
  args.request = &request;
  args.dirs = count == 0 ? nullptr : static_cast<const lds_dir*>(dirs_bytes);
  args.order = order.data();
  args.order_len = kOrderCanary;
  args.error = error.data();
  args.error_cap = error.cap();

  RankCall outcome;
  try {
    outcome.status = strategy.rank(instance, &args);
  } catch (...) {
    outcome.status = LDS_ERR_INTERNAL;
    outcome.fault = "rank let a C++ exception escape across the C ABI";
    return outcome;
  }
  outcome.error = error.text();

  auto& fault = outcome.fault;
  const std::string buffer_fault = error.fault(outcome.status != LDS_OK);
  if (!buffer_fault.empty()) {
    fault = "rank " + buffer_fault;
  } else if ((!dirs_before.empty() &&
              std::memcmp(dirs_before.data(), dirs_bytes, dirs_before.size()) != 0) ||
             std::memcmp(&request_before, &request, sizeof request) != 0) {
    fault = "rank wrote into the host's read-only candidates or request";
  } else if (std::any_of(order.begin() + count, order.end(),
                         [](uint32_t v) { return v != kOrderCanary; })) {
    fault = "rank wrote past order[dir_count - 1]";
  } else if (outcome.status == LDS_OK) {
    const std::string problem = abi_rules::ranking_problem(order.data(), args.order_len, count);
    if (!problem.empty()) {
      fault = "rank returned an invalid ranking: " + problem;
    } else {
      outcome.order.assign(order.begin(), order.begin() + args.order_len);
    }
  } else if (outcome.status != LDS_ERR_NO_ELIGIBLE_DIR) {
    fault = "rank returned status " + std::to_string(outcome.status) + " with error " +
            quote(outcome.error) + " for well-formed arguments";
  }
  return outcome;
}

}  // namespace lds::conformance_detail
