// rank_call.cpp: calling rank with canaried and guarded buffers and judging everything the plugin
// wrote.
#include "conformance/rank_call.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <limits>

#include "strategy/abi_rules.h"

namespace lds::conformance_detail {
namespace {

// order gets kOrderSlack entries past dir_count, and order and order_len start as kOrderCanary, so
// a write past dir_count or an order_len left unset is visible.
constexpr uint32_t kOrderCanary = 0xA5A5A5A5u;
constexpr size_t kOrderSlack = 8;
// scores gets kScoreSlack entries past dir_count, each the host's NaN, compared bit for bit.
constexpr size_t kScoreSlack = 4;

// The lds_rank_args a host of ABI 1.<host_minor> passes: its own size, and for 1.2 purpose and
// scores.
size_t host_rank_args_size(uint32_t host_minor) {
  return host_minor >= 2 ? sizeof(lds_rank_args) : abi_rules::kRankArgsV11Size;
}

// Why a plugin may refuse an older host's well-formed call with LDS_ERR_INVALID_ARGUMENT: it
// compared struct_size with its own sizeof(lds_rank_args). "" when that cannot be it.
std::string older_args_hint(int32_t status, uint32_t host_minor) {
  if (host_minor >= 2 || status != LDS_ERR_INVALID_ARGUMENT) return "";
  return " (a host of ABI 1." + std::to_string(host_minor) + " passes lds_rank_args at the " +
         std::to_string(abi_rules::kRankArgsV11Size) +
         " bytes of 1.1, which a plugin must accept: it reads purpose and scores only when "
         "LDS_RANK_ARGS_HAVE_PURPOSE holds)";
}

// The same bits (NaN payloads included): whether the plugin left the host's NaN untouched.
bool same_bits(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

// Whether the plugin changed any byte of the args block but order_len, its one output there.
bool wrote_into_args(const HostBlock& args, const std::vector<unsigned char>& before) {
  std::vector<unsigned char> after(args.data(), args.data() + args.size());
  constexpr size_t kAt = offsetof(lds_rank_args, order_len);
  std::memcpy(after.data() + kAt, before.data() + kAt, sizeof(uint32_t));
  return after != before;
}

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

std::string purpose_name(uint32_t purpose) {
  switch (purpose) {
    case LDS_RANK_PLACE:
      return "LDS_RANK_PLACE";
    case LDS_RANK_VALIDATE:
      return "LDS_RANK_VALIDATE";
    case LDS_RANK_PREVIEW:
      return "LDS_RANK_PREVIEW";
    case LDS_RANK_MOVE:
      return "LDS_RANK_MOVE";
    default:
      return "the reserved purpose " + std::to_string(purpose) + " (read as LDS_RANK_VALIDATE)";
  }
}

RankCall call_rank(const lds_strategy& strategy, void* instance, const CandidateSet& set,
                   DirLayout layout, uint32_t host_minor, uint32_t purpose, uint32_t error_cap) {
  const auto count = static_cast<uint32_t>(set.dirs.size());
  const bool has_purpose = host_minor >= 2;
  HostBlock dirs = host_dirs(set, layout, host_minor);
  HostBlock request = host_request(set, host_minor);
  dirs.seal();
  request.seal();

  std::vector<uint32_t> order(count + kOrderSlack, kOrderCanary);
  const double host_nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> scores(count + kScoreSlack, host_nan);
  ErrorBuffer error(error_cap);
  lds_rank_args fields{};
  const size_t args_size = host_rank_args_size(host_minor);
  fields.struct_size = static_cast<uint32_t>(args_size);
  fields.dir_count = count;
  fields.dir_stride = static_cast<uint32_t>(host_dir_stride(layout, host_minor));
  fields.request = reinterpret_cast<const lds_request*>(request.data());
  fields.dirs = count == 0 ? nullptr : reinterpret_cast<const lds_dir*>(dirs.data());
  fields.order = order.data();
  fields.order_len = kOrderCanary;
  fields.error = error.data();
  fields.error_cap = error.cap();
  fields.purpose = has_purpose ? purpose : kPurposePoison;
  fields.scores = scores.data();
  // An older host's struct ends before scores: the copy leaves it out.
  HostBlock args(args_size);
  std::memcpy(args.data(), &fields, args_size);
  const std::vector<unsigned char> args_before(args.data(), args.data() + args_size);

  RankCall outcome;
  try {
    outcome.status = strategy.rank(instance, reinterpret_cast<lds_rank_args*>(args.data()));
  } catch (...) {
    outcome.status = LDS_ERR_INTERNAL;
    outcome.fault = "rank let a C++ exception escape across the C ABI";
    return outcome;
  }
  outcome.error = error.text();
  uint32_t order_len = 0;
  std::memcpy(&order_len, args.data() + offsetof(lds_rank_args, order_len), sizeof order_len);

  auto& fault = outcome.fault;
  const bool unexpected_status =
      outcome.status != LDS_OK && outcome.status != LDS_ERR_NO_ELIGIBLE_DIR;
  const std::string status_text = "rank returned status " + std::to_string(outcome.status);
  const std::string buffer_fault = error.fault(outcome.status != LDS_OK);
  if (!buffer_fault.empty()) {
    fault = unexpected_status
                ? status_text + " for well-formed arguments" +
                      older_args_hint(outcome.status, host_minor) + " and " + buffer_fault
                : "rank " + buffer_fault;
  } else if (dirs.written_since_sealed() || request.written_since_sealed()) {
    fault = "rank wrote into the host's read-only candidates or request";
  } else if (wrote_into_args(args, args_before)) {
    fault = "rank wrote into lds_rank_args outside order_len";
  } else if (std::any_of(order.begin() + count, order.end(),
                         [](uint32_t v) { return v != kOrderCanary; })) {
    fault = "rank wrote past order[dir_count - 1]";
  } else if (std::any_of(scores.begin() + count, scores.end(),
                         [host_nan](double v) { return !same_bits(v, host_nan); })) {
    fault = "rank wrote past scores[dir_count - 1]";
  } else if (outcome.status == LDS_OK) {
    const std::string problem = abi_rules::ranking_problem(order.data(), order_len, count);
    if (!problem.empty()) {
      fault = "rank returned an invalid ranking: " + problem;
    } else {
      outcome.order.assign(order.begin(), order.begin() + order_len);
      if (has_purpose) outcome.scores.assign(scores.begin(), scores.begin() + count);
    }
  } else if (unexpected_status) {
    fault = status_text + " with error " + quote(outcome.error) + " for well-formed arguments" +
            older_args_hint(outcome.status, host_minor);
  }
  return outcome;
}

}  // namespace lds::conformance_detail
