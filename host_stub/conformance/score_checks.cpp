// score_checks.cpp: the checks that judge what each valid answer says beyond its order: the scores
// written beside it (ABI 1.2) and the cordoned directories it must leave out.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "conformance/conformance_run.h"
#include "strategy/abi_rules.h"

namespace lds::conformance_detail {
namespace {

// "+inf", "-inf", or the value as printf's %g writes it.
std::string score_text(double score) {
  if (std::isinf(score)) return score > 0 ? "+inf" : "-inf";
  char text[32];
  std::snprintf(text, sizeof text, "%g", score);
  return text;
}

// What makes `name` unfit as the heading of the scores, or "".
std::string score_name_fault(const char* name) {
  if (name == nullptr) return "score_name is NULL";
  const size_t length = strnlen(name, abi_rules::kScoreNameMaxBytes + 1);
  if (length == 0) return "score_name is empty";
  if (length > abi_rules::kScoreNameMaxBytes) {
    return "score_name is longer than " + std::to_string(abi_rules::kScoreNameMaxBytes) +
           " bytes (it starts " + quote(std::string_view(name, abi_rules::kScoreNameMaxBytes)) +
           ")";
  }
  for (size_t i = 0; i < length; ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02x", c);
      return "score_name " + quote(name) + " holds the control character " + code + " at byte " +
             std::to_string(i);
    }
  }
  return "";
}

bool has_cordoned_dir(const CandidateSet& set) {
  for (const lds_dir& dir : set.dirs) {
    if ((dir.flags & LDS_DIR_CORDONED) != 0) return true;
  }
  return false;
}

}  // namespace

void ConformanceRun::rank_scores() {
  if (const std::string reason = cannot_rank(); !reason.empty()) {
    return skip(kRankScores, reason);
  }
  if (!host_has_purpose()) {
    return not_applicable(kRankScores, "a host of ABI " + host_abi() + " passes no scores");
  }
  std::string fault;
  std::string first_score;  // the first score written: "3 into scores[0] on candidate set 0 ..."
  for (const uint32_t purpose : host_purposes()) {
    for (const CandidateSet& set : battery()) {
      if (!fault.empty()) break;
      const RankCall outcome = ask_as_host(instance_, set, purpose);
      // Only valid answers carry scores; a broken answer is rank_valid_orders' to report.
      if (!outcome.fault.empty() || outcome.status != LDS_OK) continue;
      for (size_t i = 0; i < outcome.scores.size() && fault.empty(); ++i) {
        const double score = outcome.scores[i];
        if (std::isnan(score)) continue;
        const std::string written = score_text(score) + " into scores[" + std::to_string(i) +
                                    "] on " + set.label + with_purpose(purpose);
        if (std::isinf(score)) {
          fault = "rank wrote " + written + "; a score must be finite, or NaN for none";
        } else if (first_score.empty()) {
          first_score = written;
        }
      }
    }
  }
  if (fault.empty() && !first_score.empty()) {
    if (const std::string problem = score_name_fault(descriptor_.score_name); !problem.empty()) {
      fault = "rank writes scores (" + first_score + ") but the descriptor's " + problem +
              "; set .score_name in your lds_strategy to what they measure, for example "
              "\"projected fill\"";
    }
  }
  verdict(kRankScores, fault);
}

void ConformanceRun::rank_honors_cordon() {
  if (const std::string reason = cannot_rank(); !reason.empty()) {
    return skip(kRankHonorsCordon, reason);
  }
  if ((descriptor_.capabilities & LDS_CAP_HONORS_CORDON) == 0) {
    return pass(kRankHonorsCordon,
                "the plugin does not declare LDS_CAP_HONORS_CORDON, so it may rank cordoned "
                "directories");
  }
  std::string fault;
  for (const uint32_t purpose : host_purposes()) {
    for (const CandidateSet& set : battery()) {
      if (!fault.empty()) break;
      if (!has_cordoned_dir(set)) continue;
      const RankCall outcome = ask_as_host(instance_, set, purpose);
      if (!outcome.fault.empty() || outcome.status != LDS_OK) continue;
      for (const uint32_t index : outcome.order) {
        if ((set.dirs[index].flags & LDS_DIR_CORDONED) == 0) continue;
        fault = "rank ranked directory " + std::to_string(index) +
                ", which is cordoned (LDS_DIR_CORDONED), in its answer " + describe(outcome) +
                " on " + set.label + with_purpose(purpose) +
                "; the plugin declares LDS_CAP_HONORS_CORDON, so it must leave cordoned "
                "directories out";
        break;
      }
    }
  }
  verdict(kRankHonorsCordon, fault);
}

}  // namespace lds::conformance_detail
