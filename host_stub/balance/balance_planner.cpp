// balance_planner.cpp: the balance and drain planners: projected fills, the target band, the
// lower bound, the fit rule and the acceptance test.
#include "balance/balance_planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "balance/balance_projection.h"
#include "util/byte_size.h"

namespace lds {
namespace {

constexpr double kOvershoot = 1.10;   // a pick may exceed the needed transfer by at most 10%
constexpr size_t kLargestTries = 16;  // past the 10% rule: candidates tried before giving up

using detail::BalanceProjection;

bool eligible(const BalanceDir& d) { return detail::balance_eligible(d); }

// A partition that may move: its size and its index in the model.
struct Candidate {
  uint64_t size;
  uint32_t index;
  bool operator<(const Candidate& o) const {
    return size != o.size ? size < o.size : index < o.index;
  }
};

bool may_move(const BalancePartition& p, const BalanceSettings& s) {
  if (p.moving || p.size == 0) return false;
  if (p.last_moved_ms && s.now_ms - *p.last_moved_ms < s.cooldown_ms) return false;
  if (s.throttle_bytes_per_sec < kNoMoveThrottle &&
      p.bytes_in_per_sec > static_cast<double>(s.throttle_bytes_per_sec) / 2) {
    return false;
  }
  return true;
}

// The eligible dirs but `from`, with their filesystems' projected figures. A balance
// (`below_ideal_only`) offers none on from's filesystem: a move there changes no fill.
std::vector<DestinationCandidate> destinations(const BalanceProjection& proj, uint32_t from,
                                               bool below_ideal_only) {
  std::vector<DestinationCandidate> out;
  for (uint32_t d : proj.dirs()) {
    if (d == from) continue;
    if (below_ideal_only && proj.filesystem(d) == proj.filesystem(from)) continue;
    if (below_ideal_only && proj.fill(d) >= proj.ideal()) continue;
    out.push_back({d, static_cast<uint64_t>(proj.total(d)),
                   static_cast<uint64_t>(std::max(0.0, proj.physical(d)))});
  }
  return out;
}

// The room on the filesystems of the eligible dirs but `dir`, each filesystem counted once.
uint64_t room_outside(const BalanceProjection& proj, uint32_t dir) {
  std::vector<uint32_t> counted;
  double room = 0;
  for (uint32_t d : proj.dirs()) {
    const uint32_t f = proj.filesystem(d);
    if (d == dir || std::find(counted.begin(), counted.end(), f) != counted.end()) continue;
    counted.push_back(f);
    room += std::max(0.0, proj.total(d) - proj.physical(d));
  }
  return static_cast<uint64_t>(room);
}

// ", /d1 and /d2 share one filesystem, counted once" for each filesystem that two or more of the
// eligible dirs but `dir` are on; empty when none share.
std::string shared_filesystems(const BalanceProjection& proj, const BalanceModel& model,
                               uint32_t dir) {
  std::string out;
  std::vector<uint32_t> told;
  for (uint32_t d : proj.dirs()) {
    const uint32_t f = proj.filesystem(d);
    if (d == dir || std::find(told.begin(), told.end(), f) != told.end()) continue;
    std::vector<std::string> paths;
    for (uint32_t o : proj.dirs()) {
      if (o != dir && proj.filesystem(o) == f) paths.push_back(model.dirs[o].path);
    }
    if (paths.size() < 2) continue;
    told.push_back(f);
    out += ", ";
    for (size_t k = 0; k < paths.size(); ++k) {
      out += (k == 0 ? "" : k + 1 == paths.size() ? " and " : ", ") + paths[k];
    }
    out += " share one filesystem, counted once";
  }
  return out;
}

// One round of plan_balance: the projection as the moves planned so far leave it, the target band,
// the partitions that may still move and what each filesystem does in the round.
class BalanceRound {
 public:
  BalanceRound(const BalanceModel& model, const BalanceSettings& settings,
               const RankDestinations& rank);

  BalancePlan plan();

 private:
  // The plan's figures before any move: each dir's fill and the round's lower bound.
  void figure_model();
  bool in_band() const;
  // Why the spread calls for a round, or empty when the dirs are balanced.
  std::string reason_to_act() const;
  // The plan with its fills after the planned moves and `summary`.
  BalancePlan finish(std::string summary);
  void collect_candidates();
  void select_moves();
  // Takes one move off `from`, if one of its candidates can go; returns whether it did.
  bool move_from(uint32_t from);
  bool move_closest_to_need(uint32_t from, double need, size_t within);
  bool move_smallest_fitting(uint32_t from, size_t within);
  bool try_move(uint32_t from, size_t k);
  std::string blocked_by() const;
  // Of the destinations the strategy accepts for `p`, the one with the most room left.
  std::optional<uint32_t> roomiest_destination(const BalancePartition& p, uint32_t from) const;
  // "3 moves of 1.2 GiB (lower bound 1.1 GiB): spread 21.5 > 10.0 points", and why it stops short.
  std::string moves_summary() const;

  int role(uint32_t d) const { return fs_role_[proj_.filesystem(d)]; }
  void set_role(uint32_t d, int value) { fs_role_[proj_.filesystem(d)] = value; }

  const BalanceModel& model_;
  const BalanceSettings& settings_;
  const RankDestinations& rank_;
  BalanceProjection proj_;
  BalancePlan plan_;
  double ideal_ = 0;
  double band_lo_ = 0, band_hi_ = 0;
  double excess_ = 0, deficit_ = 0;
  std::string reason_;
  // No dir over the band's top, yet the spread is over the threshold (or a round was asked for):
  // the dirs over the ideal give towards the ones far under it.
  bool under_only_ = false;
  // The partitions that may move, by dir, smallest first.
  std::vector<std::vector<Candidate>> on_;
  // Within a round a dir either gives or takes, never both: a plan that moved bytes back and forth
  // would move more than the lower bound for nothing. Dirs sharing a filesystem share its role.
  std::vector<int> fs_role_;  // +1 gives, -1 takes; by filesystem
};

BalanceRound::BalanceRound(const BalanceModel& model, const BalanceSettings& settings,
                           const RankDestinations& rank)
    : model_(model),
      settings_(settings),
      rank_(rank),
      proj_(model),
      ideal_(proj_.ideal()),
      on_(model.dirs.size()),
      fs_role_(model.dirs.size(), 0) {
  const double quarter = settings.threshold_percent / 400.0;  // threshold/4 as a fraction
  band_lo_ = ideal_ - quarter;
  band_hi_ = ideal_ + quarter;
}

BalancePlan BalanceRound::plan() {
  figure_model();
  if (proj_.dirs().size() < 2) {
    return finish("fewer than two online, uncordoned log directories: nothing to balance");
  }
  if (proj_.filesystems().size() < 2) {
    return finish(
        "the online, uncordoned log directories share one filesystem: nothing to "
        "balance");
  }
  reason_ = reason_to_act();
  if (reason_.empty()) {
    return finish("spread " + percent_text(plan_.spread_before_percent) +
                  " <= " + percent_text(settings_.threshold_percent) + " points: balanced");
  }
  plan_.act = true;
  if (settings_.throttle_bytes_per_sec == 0) {
    return finish(reason_ + ", but " + std::string(kMovesHeldByZeroThrottle));
  }
  under_only_ = excess_ == 0 &&
                (plan_.spread_before_percent > settings_.threshold_percent || settings_.force);
  collect_candidates();
  select_moves();
  return finish(moves_summary());
}

void BalanceRound::figure_model() {
  plan_.threshold_percent = settings_.threshold_percent;
  plan_.ideal_percent = ideal_ * 100;
  plan_.spread_before_percent = proj_.spread() * 100;
  for (size_t i = 0; i < model_.dirs.size(); ++i) {
    const uint32_t d = static_cast<uint32_t>(i);
    DirFill f{model_.dirs[i].path, eligible(model_.dirs[i]), 0, 0};
    if (f.eligible) f.before_percent = proj_.fill(d) * 100;
    plan_.dirs.push_back(f);
  }
  for (uint32_t d : proj_.filesystems()) {  // a filesystem's dirs share its excess or deficit
    excess_ += std::max(0.0, std::floor(proj_.effective(d) - band_hi_ * proj_.total(d)));
    deficit_ += std::max(0.0, std::floor(band_lo_ * proj_.total(d) - proj_.effective(d)));
  }
  // Every plan that reaches the band moves at least the excesses over its top, and at least the
  // deficits under its bottom: the larger of the two is the round's lower bound.
  plan_.lower_bound_bytes = static_cast<uint64_t>(std::max(excess_, deficit_));
}

bool BalanceRound::in_band() const {
  for (uint32_t d : proj_.dirs()) {
    const double f = proj_.fill(d);
    if (f > band_hi_ || f < band_lo_) return false;
  }
  return true;
}

std::string BalanceRound::reason_to_act() const {
  const double spread = plan_.spread_before_percent;
  const std::string spread_text = percent_text(spread);
  const std::string threshold_text = percent_text(settings_.threshold_percent);
  if (spread > settings_.threshold_percent) {
    return "spread " + spread_text + " > " + threshold_text + " points";
  }
  if (settings_.force && !in_band()) {
    return "spread " + spread_text + " points, a round was asked for";
  }
  if (settings_.balancing && !in_band()) {
    return "spread " + spread_text + " points, balancing on to " +
           percent_text(settings_.threshold_percent / 2);
  }
  return {};
}

BalancePlan BalanceRound::finish(std::string summary) {
  plan_.spread_after_percent = proj_.spread() * 100;
  for (uint32_t d : proj_.dirs()) plan_.dirs[d].after_percent = proj_.fill(d) * 100;
  plan_.target_reached = in_band();
  plan_.summary = std::move(summary);
  return std::move(plan_);
}

void BalanceRound::collect_candidates() {
  for (size_t i = 0; i < model_.partitions.size(); ++i) {
    const BalancePartition& p = model_.partitions[i];
    if (p.dir < on_.size() && may_move(p, settings_)) {
      on_[p.dir].push_back({p.size, static_cast<uint32_t>(i)});
    }
  }
  for (auto& list : on_) std::sort(list.begin(), list.end());
}

void BalanceRound::select_moves() {
  while (plan_.moves.size() < settings_.max_moves && !in_band()) {
    // Sources: the dirs above the ideal, most over first.
    std::vector<uint32_t> sources;
    for (uint32_t d : proj_.dirs()) {
      if (proj_.fill(d) > ideal_) sources.push_back(d);
    }
    std::sort(sources.begin(), sources.end(),
              [&](uint32_t a, uint32_t b) { return proj_.fill(a) > proj_.fill(b); });
    bool moved = false;
    for (uint32_t from : sources) {
      if (move_from(from)) {
        moved = true;
        break;
      }
    }
    if (!moved) break;
  }
}

bool BalanceRound::move_from(uint32_t from) {
  const auto& list = on_[from];
  if (list.empty() || role(from) < 0) return false;
  // The needed transfer: its excess over the band's top; when the spread is over the
  // threshold with no dir over the band (one dir far under it), its excess over the ideal.
  double need = proj_.effective(from) - band_hi_ * proj_.total(from);
  if (need <= 0 && under_only_) need = proj_.effective(from) - ideal_ * proj_.total(from);
  if (need <= 0) return false;
  // The one closest to the need without overshooting it by more than 10%...
  const auto cap = static_cast<uint64_t>(std::floor(need * kOvershoot));
  const size_t within = static_cast<size_t>(
      std::upper_bound(list.begin(), list.end(), Candidate{cap, UINT32_MAX}) - list.begin());
  if (within > 0 && move_closest_to_need(from, need, within)) return true;
  // ...else the smallest above that which fits: in a destination's room below the band's top,
  // leaving the source no lower than the band's bottom. (The largest that fits, tried first,
  // overshot by up to the whole band and was moved back a round later; see "Balancing and
  // draining" in docs/operations.md.)
  return move_smallest_fitting(from, within);
}

// Tries on_[from]'s first `within` candidates, those that overshoot `need` by at most 10%: the
// closest to it first.
bool BalanceRound::move_closest_to_need(uint32_t from, double need, size_t within) {
  const auto& list = on_[from];
  const auto at_need = static_cast<uint64_t>(std::ceil(need));
  size_t best = static_cast<size_t>(
      std::lower_bound(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(within),
                       Candidate{at_need, 0}) -
      list.begin());
  if (best == within || (best > 0 && std::fabs(static_cast<double>(list[best - 1].size) - need) <=
                                         std::fabs(static_cast<double>(list[best].size) - need))) {
    best = best > 0 ? best - 1 : best;
  }
  // When the closest fits nowhere the strategy ranks, the next ones below it.
  for (size_t k = best + 1, tries = 0; k-- > 0 && tries < kLargestTries; ++tries) {
    if (try_move(from, k)) return true;
  }
  return false;
}

// From on_[from]'s candidate `within` up, the smallest that fits in a destination's room below the
// band's top without taking `from` under the band's bottom.
bool BalanceRound::move_smallest_fitting(uint32_t from, size_t within) {
  const auto& list = on_[from];
  double room = 0;
  for (uint32_t d : proj_.dirs()) {
    if (d != from && role(d) <= 0 && proj_.fill(d) < ideal_) {
      room = std::max(room, band_hi_ * proj_.total(d) - proj_.effective(d));
    }
  }
  room = std::min(room, proj_.effective(from) - band_lo_ * proj_.total(from));
  if (room <= 0) return false;
  const size_t fitting = static_cast<size_t>(
      std::upper_bound(list.begin(), list.end(),
                       Candidate{static_cast<uint64_t>(std::floor(room)), UINT32_MAX}) -
      list.begin());
  for (size_t k = within, tries = 0; k < fitting && tries < kLargestTries; ++k, ++tries) {
    if (try_move(from, k)) return true;
  }
  return false;
}

// Takes the move of on_[from][k] to the first ranked destination it fits in that lowers the
// spread.
bool BalanceRound::try_move(uint32_t from, size_t k) {
  const Candidate c = on_[from][k];
  const BalancePartition& p = model_.partitions[c.index];
  const double bytes = static_cast<double>(c.size);
  const std::vector<DestinationCandidate> cands = destinations(proj_, from, true);
  if (cands.empty()) return false;
  const double before = proj_.spread();
  for (uint32_t to : rank_(p, cands)) {
    if (to == from || to >= model_.dirs.size() || !eligible(model_.dirs[to])) continue;
    if (role(to) > 0 || proj_.fill(to) >= ideal_) continue;
    if (!proj_.fits(to, bytes)) continue;
    if (proj_.spread(from, to, bytes) >= before) continue;
    PlannedMove m;
    m.tp = p.tp;
    m.from = from;
    m.to = to;
    m.bytes = c.size;
    m.from_fill_percent = proj_.fill(from) * 100;
    m.to_fill_percent = proj_.fill(to) * 100;
    m.reason = reason_;
    plan_.moves.push_back(std::move(m));
    plan_.planned_bytes += c.size;
    proj_.move(from, to, bytes);
    set_role(from, 1);
    set_role(to, -1);
    on_[from].erase(on_[from].begin() + static_cast<std::ptrdiff_t>(k));
    return true;
  }
  return false;
}

// Why the round stops short, told by the smallest replica that may still move: the operator
// learns what blocks it (its size against the band, or the room left), not only that it stopped.
std::string BalanceRound::blocked_by() const {
  const Candidate* smallest = nullptr;
  uint32_t from = 0;
  for (uint32_t d : proj_.dirs()) {
    if (role(d) < 0 || proj_.fill(d) <= ideal_ || on_[d].empty()) continue;
    if (smallest == nullptr || on_[d].front() < *smallest) {
      smallest = &on_[d].front();
      from = d;
    }
  }
  if (smallest == nullptr) {
    return "no replica above the ideal fill may move (each is empty, already moving, in its "
           "cooldown, or appending faster than half the throttle)";
  }
  const BalancePartition& p = model_.partitions[smallest->index];
  const double bytes = static_cast<double>(p.size);
  const std::string& from_path = model_.dirs[from].path;
  const std::string head = "the smallest candidate, " + p.tp.str() + " (" +
                           format_byte_size(p.size) + ") from " + from_path;
  // Of the destinations the strategy accepts, the one with the most room left: if the replica
  // does not fit there, it fits nowhere.
  const std::optional<uint32_t> best = roomiest_destination(p, from);
  if (!best) return head + ", has no destination below the ideal fill that the strategy accepts";
  const uint32_t to = *best;
  const std::string& to_path = model_.dirs[to].path;
  const std::string move = head + " to " + to_path;
  if (!proj_.fits(to, bytes)) {
    const auto left = static_cast<uint64_t>(std::max(0.0, proj_.total(to) - proj_.physical(to)));
    return move + ", does not fit: " + to_path + " has " + format_byte_size(left) +
           " left after reservations";
  }
  if (const double after = (proj_.effective(to) + bytes) / proj_.total(to); after > band_hi_) {
    return move + ", would overshoot the band: " + to_path + " would reach " +
           percent_text(after * 100) + "%, over the band's top of " + percent_text(band_hi_ * 100) +
           "%";
  }
  if (const double after = (proj_.effective(from) - bytes) / proj_.total(from); after < band_lo_) {
    return move + ", would overshoot the band: " + from_path + " would fall to " +
           percent_text(std::max(0.0, after) * 100) + "%, under the band's bottom of " +
           percent_text(band_lo_ * 100) + "%";
  }
  if (proj_.spread(from, to, bytes) >= proj_.spread()) {
    return move + ", would not lower the spread";
  }
  return {};
}

std::optional<uint32_t> BalanceRound::roomiest_destination(const BalancePartition& p,
                                                           uint32_t from) const {
  std::optional<uint32_t> best;
  const std::vector<DestinationCandidate> cands = destinations(proj_, from, true);
  for (uint32_t to : cands.empty() ? std::vector<uint32_t>{} : rank_(p, cands)) {
    if (to == from || to >= model_.dirs.size() || !eligible(model_.dirs[to])) continue;
    if (role(to) > 0 || proj_.fill(to) >= ideal_) continue;
    if (!best ||
        proj_.total(to) - proj_.physical(to) > proj_.total(*best) - proj_.physical(*best)) {
      best = to;
    }
  }
  return best;
}

std::string BalanceRound::moves_summary() const {
  std::string summary = std::to_string(plan_.moves.size()) + " moves of " +
                        format_byte_size(plan_.planned_bytes) + " (lower bound " +
                        format_byte_size(plan_.lower_bound_bytes) + "): " + reason_;
  if (!in_band()) {
    summary += "; no further move lowers the spread";
    if (const std::string why = blocked_by(); !why.empty()) summary += "; " + why;
  }
  return summary;
}

}  // namespace

BalancePlan plan_balance(const BalanceModel& model, const BalanceSettings& settings,
                         const RankDestinations& rank) {
  return BalanceRound(model, settings, rank).plan();
}

const BalancePartition* BalanceModel::find(const TopicPartition& tp) const {
  for (const BalancePartition& p : partitions) {
    if (p.tp == tp) return &p;
  }
  return nullptr;
}

double balance_fill_percent(const BalanceModel& model, uint32_t dir) {
  if (dir >= model.dirs.size() || model.dirs[dir].total_bytes == 0) return 0;
  return BalanceProjection(model).fill(dir) * 100;
}

uint64_t balance_room_bytes(const BalanceModel& model, uint32_t dir) {
  if (dir >= model.dirs.size() || model.dirs[dir].total_bytes == 0) return 0;
  const BalanceProjection proj(model);
  return static_cast<uint64_t>(std::max(0.0, proj.total(dir) - proj.physical(dir)));
}

std::string balance_move_problem(const BalanceModel& model, uint32_t from, uint32_t to,
                                 uint64_t bytes) {
  BalanceProjection proj(model);
  const auto& dirs = proj.dirs();
  if (std::find(dirs.begin(), dirs.end(), from) == dirs.end() ||
      std::find(dirs.begin(), dirs.end(), to) == dirs.end()) {
    return "its source or destination is offline or cordoned";
  }
  if (proj.fill(from) <= proj.ideal()) return "its source is no longer above the ideal fill";
  if (proj.fill(to) >= proj.ideal()) return "its destination is no longer below the ideal fill";
  const double b = static_cast<double>(bytes);
  if (!proj.fits(to, b)) return "its destination no longer has room for it";
  if (proj.spread(from, to, b) >= proj.spread()) return "it would no longer lower the spread";
  return {};
}

DrainPlan plan_drain(const BalanceModel& model, uint32_t dir, const RankDestinations& rank) {
  DrainPlan plan;
  BalanceProjection proj(model);
  std::vector<uint32_t> leaving;
  for (size_t i = 0; i < model.partitions.size(); ++i) {
    const BalancePartition& p = model.partitions[i];
    if (p.dir == dir && !p.moving) leaving.push_back(static_cast<uint32_t>(i));
  }
  std::sort(leaving.begin(), leaving.end(), [&](uint32_t a, uint32_t b) {
    return model.partitions[a].size > model.partitions[b].size;
  });
  plan.room_bytes = room_outside(proj, dir);
  uint64_t unplaced = 0;
  for (uint32_t i : leaving) {
    const BalancePartition& p = model.partitions[i];
    plan.bytes += p.size;
    const double bytes = static_cast<double>(p.size);
    bool placed = false;
    const std::vector<DestinationCandidate> cands = destinations(proj, dir, false);
    if (!cands.empty()) {
      for (uint32_t to : rank(p, cands)) {
        if (to == dir || to >= model.dirs.size() || !eligible(model.dirs[to])) continue;
        if (!proj.fits(to, bytes)) continue;
        PlannedMove m;
        m.tp = p.tp;
        m.from = dir;
        m.to = to;
        m.bytes = p.size;
        m.from_fill_percent =
            model.dirs[dir].total_bytes > 0 ? 100.0 * proj.effective(dir) / proj.total(dir) : 0;
        m.to_fill_percent = proj.fill(to) * 100;
        m.reason = "draining " + model.dirs[dir].path;
        proj.move(dir, to, bytes);
        plan.moves.push_back(std::move(m));
        placed = true;
        break;
      }
    }
    if (!placed) {
      unplaced += p.size;
      plan.unplaced.push_back(p.tp);
    }
  }
  // An empty partition that finds no destination stops the drain as surely as a large one.
  if (!plan.unplaced.empty()) {
    plan.moves.clear();
    const std::string head = "Cannot drain " + model.dirs[dir].path + ": its " +
                             std::to_string(plan.bytes) + " bytes (" +
                             format_byte_size(plan.bytes) + ") ";
    const std::string room =
        std::to_string(plan.room_bytes) + " bytes (" + format_byte_size(plan.room_bytes) + ")";
    const bool none =
        std::none_of(proj.dirs().begin(), proj.dirs().end(), [&](uint32_t d) { return d != dir; });
    if (none) {
      plan.shortfall_bytes = plan.bytes;
      plan.problem = "Cannot drain " + model.dirs[dir].path +
                     ": no other log directory is online and uncordoned to take its " +
                     std::to_string(leaving.size()) +
                     (leaving.size() == 1 ? " partition." : " partitions.");
    } else if (plan.bytes > plan.room_bytes) {
      plan.shortfall_bytes = plan.bytes - plan.room_bytes;
      plan.problem = head +
                     "do not fit on the other online, uncordoned log directories, which can take " +
                     room + " with moves in flight counted" + shared_filesystems(proj, model, dir) +
                     "; " + std::to_string(plan.shortfall_bytes) + " bytes short.";
    } else {
      plan.shortfall_bytes = unplaced;
      const std::string which =
          unplaced > 0 ? std::to_string(unplaced) + " bytes of it are in partitions that fit"
                       : std::to_string(plan.unplaced.size()) +
                             (plan.unplaced.size() == 1 ? " empty partition of it fits"
                                                        : " empty partitions of it fit");
      plan.problem = head + "would fit in the " + room + " the other log directories can take" +
                     shared_filesystems(proj, model, dir) + ", but " + which +
                     " in no single one of them as the strategy ranks them.";
    }
  }
  return plan;
}

std::string percent_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace lds
