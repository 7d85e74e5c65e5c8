// placement_explanation.cpp: the figures and reasons of one placement decision, and its log line.
#include "placement/placement_explanation.h"

#include <cmath>
#include <cstdio>

#include "util/byte_size.h"

namespace lds {

namespace {

bool cordoned(const lds_dir& d) { return (d.flags & LDS_DIR_CORDONED) != 0; }
bool space_known(const lds_dir& d) {
  return (d.flags & LDS_DIR_SPACE_UNKNOWN) == 0 && d.total_bytes > 0;
}

PlacementCandidate candidate_of(const RankingSeen& seen, size_t k, const std::string& path) {
  const lds_dir& d = seen.candidates[k];
  PlacementCandidate c;
  if (k < seen.scores.size() && std::isfinite(seen.scores[k])) c.score = seen.scores[k];
  c.log_dir = path;
  c.space_known = space_known(d);
  c.total_bytes = c.space_known ? d.total_bytes : 0;
  c.usable_bytes = c.space_known ? d.usable_bytes : 0;
  c.reserved_bytes = d.reserved_bytes;
  c.partition_count = d.partition_count;
  c.topic_partition_count = d.topic_partition_count;
  return c;
}

}  // namespace

std::optional<double> PlacementCandidate::fill_percent() const {
  if (!space_known || total_bytes == 0) return std::nullopt;
  const uint64_t used = total_bytes > usable_bytes ? total_bytes - usable_bytes : 0;
  return 100.0 * static_cast<double>(used) / static_cast<double>(total_bytes);
}

std::optional<double> PlacementCandidate::projected_fill_percent(uint64_t expected_bytes) const {
  if (!space_known) return std::nullopt;
  return lds::projected_fill_percent(total_bytes, usable_bytes, reserved_bytes, expected_bytes);
}

std::optional<double> projected_fill_percent(uint64_t total_bytes, uint64_t usable_bytes,
                                             uint64_t reserved_bytes, uint64_t expected_bytes) {
  if (total_bytes == 0) return std::nullopt;
  const uint64_t used = total_bytes > usable_bytes ? total_bytes - usable_bytes : 0;
  // In double: the sum of four byte counts may pass 2^64 where the ratio is still meaningful.
  const double projected = static_cast<double>(used) + static_cast<double>(reserved_bytes) +
                           static_cast<double>(expected_bytes);
  return 100.0 * projected / static_cast<double>(total_bytes);
}

std::string unranked_reason(const lds_dir& dir, uint64_t expected_bytes,
                            const std::optional<std::pair<std::string, uint64_t>>& keep_free) {
  if (keep_free && space_known(dir)) {
    const uint64_t taken = dir.reserved_bytes + expected_bytes;
    const uint64_t free_after = dir.usable_bytes > taken ? dir.usable_bytes - taken : 0;
    if (free_after < keep_free->second) {
      return "below " + keep_free->first + " (" + format_byte_size(keep_free->second) +
             "): " + format_byte_size(free_after) + " free after placing " +
             format_byte_size(expected_bytes);
    }
  }
  return "not ranked by the plugin";
}

void explain_ranking(const RankingSeen& seen, PlacementExplanation& out) {
  std::vector<bool> ranked(seen.candidates.size(), false);
  uint32_t rank = 0;
  for (uint32_t k : seen.order) {
    if (k >= seen.candidates.size() || ranked[k]) continue;  // the slot refuses such rankings
    ranked[k] = true;
    if (cordoned(seen.candidates[k])) continue;
    PlacementCandidate c = candidate_of(seen, k, seen.log_dirs[seen.indices[k]]);
    c.rank = ++rank;
    out.dirs.push_back(std::move(c));
  }
  size_t k = 0;  // the next candidate, in log.dirs order as the log directories are
  for (size_t i = 0; i < seen.log_dirs.size(); ++i) {
    if (!seen.online[i]) {
      PlacementCandidate c;
      c.log_dir = seen.log_dirs[i];
      c.left_out = "offline";
      out.dirs.push_back(std::move(c));
      continue;
    }
    while (k < seen.indices.size() && seen.indices[k] < i) ++k;
    if (k == seen.indices.size() || seen.indices[k] != i) continue;
    const lds_dir& d = seen.candidates[k];
    if (ranked[k] && !cordoned(d)) continue;
    PlacementCandidate c = candidate_of(seen, k, seen.log_dirs[i]);
    if (cordoned(d)) {
      c.left_out = "cordoned";
    } else if (!seen.unranked.empty()) {
      c.left_out = seen.unranked;
    } else {
      c.left_out = unranked_reason(d, out.expected_bytes, seen.keep_free);
    }
    out.dirs.push_back(std::move(c));
  }
}

std::string placement_line(const PlacementExplanation& e) {
  std::string line = e.topic + "-" + std::to_string(e.partition) + " (expected " +
                     std::to_string(e.expected_bytes) + " bytes) by " + e.strategy +
                     ", generation " + std::to_string(e.generation) + ":";
  std::string left_out;
  bool first = true;
  for (const PlacementCandidate& c : e.dirs) {
    std::string figures;
    if (c.left_out != "offline") {
      char fill[32] = "unknown";
      if (auto f = c.fill_percent()) std::snprintf(fill, sizeof fill, "%.1f%%", *f);
      figures = "fill " + std::string(fill) + ", free " +
                (c.space_known ? std::to_string(c.usable_bytes) : std::string("unknown")) +
                ", reserved " + std::to_string(c.reserved_bytes) + ", partitions " +
                std::to_string(c.partition_count) + ", of topic " +
                std::to_string(c.topic_partition_count);
      if (c.score) {
        char score[32];
        std::snprintf(score, sizeof score, "%.4g", *c.score);
        figures += ", " + e.score_name + " " + score;
      }
    }
    if (c.rank > 0) {
      line +=
          (first ? " " : "; ") + std::to_string(c.rank) + ". " + c.log_dir + " (" + figures + ")";
      first = false;
    } else {
      left_out += (left_out.empty() ? "" : ", ") + c.log_dir + " (" + c.left_out +
                  (figures.empty() ? "" : "; " + figures) + ")";
    }
  }
  if (first) line += " nothing ranked";
  if (!left_out.empty()) line += "; left out: " + left_out;
  return line;
}

}  // namespace lds
