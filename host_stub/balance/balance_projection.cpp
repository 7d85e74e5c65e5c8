// balance_projection.cpp: the planners' projection of each filesystem's bytes, dirs sharing a
// filesystem grouped by its id.
#include "balance/balance_projection.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace lds::detail {

BalanceProjection::BalanceProjection(const BalanceModel& model) {
  const size_t n = model.dirs.size();
  fs_.resize(n);
  total_.assign(n, 0);
  physical_.assign(n, 0);
  std::vector<double> used(n, 0), reserved(n, 0);
  std::vector<bool> listed(n, false);
  std::unordered_map<uint64_t, uint32_t> first;  // filesystem id -> its first dir
  for (size_t i = 0; i < n; ++i) {
    const BalanceDir& d = model.dirs[i];
    uint32_t f = static_cast<uint32_t>(i);
    if (d.filesystem != 0 && d.total_bytes > 0) f = first.emplace(d.filesystem, f).first->second;
    fs_[i] = f;
    // Each dir of a filesystem reads its size and used bytes; its reservations are its own.
    total_[f] = std::max(total_[f], static_cast<double>(d.total_bytes));
    used[f] = std::max(used[f], static_cast<double>(d.used_bytes));
    reserved[f] += static_cast<double>(d.reserved_bytes);
    if (!balance_eligible(d)) continue;
    dirs_.push_back(static_cast<uint32_t>(i));
    if (!listed[f]) filesystems_.push_back(f);
    listed[f] = true;
  }
  for (size_t f = 0; f < n; ++f) physical_[f] = used[f] + reserved[f];
  effective_ = physical_;
  // A partition moving away counts where it is going (its destination reserved it), not where
  // it still is.
  for (const BalancePartition& p : model.partitions) {
    if (p.moving && p.dir < n) effective_[fs_[p.dir]] -= static_cast<double>(p.size);
  }
  double sum_used = 0, sum_total = 0;
  for (uint32_t f : filesystems_) {
    sum_used += std::max(0.0, effective_[f]);
    sum_total += total_[f];
  }
  ideal_ = sum_total > 0 ? sum_used / sum_total : 0;
}

double BalanceProjection::fill(uint32_t d) const { return std::max(0.0, effective(d)) / total(d); }

double BalanceProjection::spread(uint32_t from, uint32_t to, double bytes) const {
  const uint32_t src = fs_.empty() ? 0 : fs_[from], dst = fs_.empty() ? 0 : fs_[to];
  double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
  for (uint32_t f : filesystems_) {
    double e = effective_[f];
    if (src != dst) {
      if (f == src) e -= bytes;
      if (f == dst) e += bytes;
    }
    const double v = std::max(0.0, e) / total_[f];
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  return filesystems_.empty() ? 0 : hi - lo;
}

void BalanceProjection::move(uint32_t from, uint32_t to, double bytes) {
  effective_[fs_[from]] -= bytes;
  effective_[fs_[to]] += bytes;
  physical_[fs_[to]] += bytes;  // the source frees its bytes only once the move ends
}

}  // namespace lds::detail
