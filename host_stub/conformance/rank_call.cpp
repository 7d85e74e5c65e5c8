// rank_call.cpp: calling rank with canaried and guarded buffers and judging everything the plugin
// wrote.
#include "conformance/rank_call.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>

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
      // Appended: GCC 12 at -O3 reports a false -Wrestrict on `(i ? "," : "") + std::to_string(n)`.
      if (i) text += ',';
      text += std::to_string(outcome.order[i]);
    }
    return text + "]";
  }
  return "status " + std::to_string(outcome.status) + " " + quote(outcome.error);
}

RankCall call_rank(const lds_strategy& strategy, void* instance, const CandidateSet& set,
                   DirLayout layout, uint32_t host_minor, uint32_t error_cap) {
  const auto count = static_cast<uint32_t>(set.dirs.size());
  const bool v10 = host_minor == 0;
  const size_t entry_size = layout == DirLayout::kWide
                                ? sizeof(WideDir)
                                : (v10 ? abi_rules::kDirV10Size : sizeof(lds_dir));
  const size_t stride = entry_size;
  // One block of exactly count entries: nothing of the host's lies past the last one.
  const std::unique_ptr<unsigned char[]> dir_block(new unsigned char[stride * count]());
  unsigned char* const dirs_bytes = dir_block.get();
  for (uint32_t i = 0; i < count; ++i) {
    lds_dir dir = set.dirs[i];
    dir.path = set.paths[i].c_str();
    if (v10) {
      dir.flags &= ~LDS_DIR_RATE_UNKNOWN;
      dir.bytes_in_per_sec = 0;
    }
    unsigned char* entry = dirs_bytes + i * stride;
    if (layout == DirLayout::kWide) {
      if (v10) dir.flags |= LDS_DIR_RATE_UNKNOWN;
      WideDir wide{};
      std::memset(&wide, 0, sizeof wide);
      wide.dir = dir;
      wide.dir.struct_size = sizeof(WideDir);
      wide.later_a = 0xDEADBEEFDEADBEEFull;
      wide.later_b = 0xFEEDFACEu;
      std::memset(wide.later_c, 0x5A, sizeof wide.later_c);
      std::memcpy(entry, &wide, sizeof wide);
    } else {
      dir.struct_size = static_cast<uint32_t>(entry_size);
      std::memcpy(entry, &dir, entry_size);
    }
  }
  const size_t request_size = v10 ? abi_rules::kRequestV10Size : sizeof(lds_request);
  lds_request request_fields = set.request;
  request_fields.struct_size = static_cast<uint32_t>(request_size);
  request_fields.topic = set.topic.c_str();
  const std::unique_ptr<unsigned char[]> request_block(new unsigned char[request_size]);
  std::memcpy(request_block.get(), &request_fields, request_size);
  const auto* request = reinterpret_cast<const lds_request*>(request_block.get());

  const std::vector<unsigned char> dirs_before(dirs_bytes, dirs_bytes + stride * count);
  const std::vector<unsigned char> request_before(request_block.get(),
                                                  request_block.get() + request_size);

  std::vector<uint32_t> order(count + kOrderSlack, kOrderCanary);
  ErrorBuffer error(error_cap);
  lds_rank_args args{};
  args.struct_size = sizeof(lds_rank_args);
  args.dir_count = count;
  args.dir_stride = static_cast<uint32_t>(stride);
  args.request = request;
  args.dirs = count == 0 ? nullptr : reinterpret_cast<const lds_dir*>(dirs_bytes);
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
             std::memcmp(request_before.data(), request_block.get(), request_size) != 0) {
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
