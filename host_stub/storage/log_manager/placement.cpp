// log_manager/placement.cpp: LogManager's placement decision: the online directories as candidates,
// ranked by the active strategy (log_manager/creation.cpp creates the partition where it says).
#include <algorithm>

#include "io/log_layout.h"
#include "storage/log_manager.h"
#include "storage/log_manager/internal.h"
#include "util/byte_size.h"
#include "util/tick_clock.h"

namespace lds {

namespace fs = std::filesystem;

namespace {

// Why nothing can be placed with every online log directory cordoned (KIP-1066). The broker's
// faces answer Kafka's controller's sentence instead (broker/kafka_errors.h).
constexpr const char* kEveryDirCordoned = "Every online log directory is cordoned.";

bool is_cordoned(const lds_dir& d) { return (d.flags & LDS_DIR_CORDONED) != 0; }

// The strategy's keep.free.bytes option, with its full key, when it has one that reads as a byte
// count: a directory it leaves out for lack of space is then named as such.
std::optional<std::pair<std::string, uint64_t>> keep_free_option(const LoadedStrategy& s) {
  for (const auto& [key, value] : s.options()) {
    if (key != "keep.free.bytes") continue;
    if (auto bytes = parse_byte_size(value)) {
      return std::pair{"log.directory.select." + s.name() + ".keep.free.bytes", *bytes};
    }
  }
  return std::nullopt;
}

// Records in `decision` who ranked its directories, as `outcome` says: the strategy, or the
// built-in fallback and why the strategy's answer was not used.
void take_ranker(PlacementDecision& decision, RankOutcome& outcome) {
  if (outcome.fell_back) decision.refusal = std::move(outcome.refusal);
  decision.generation = outcome.strategy ? outcome.strategy->generation() : 0;
  decision.fell_back = outcome.fell_back;
  // Moved, not copied: the placement path takes no extra reference count.
  decision.placer = std::move(outcome.strategy);
}

// Sets the directories `decision` tries: the `ranked` candidates of `candidates` (log-dir indices
// `indices`), best first. Returns false, with none set, when the ranking holds only cordoned ones.
bool keep_uncordoned(PlacementDecision& decision, std::span<const lds_dir> candidates,
                     std::span<const uint32_t> indices, std::span<const uint32_t> ranked) {
  // The ranking is used as given, less any cordoned directory: a strategy that ignores cordons
  // ranks them like any other, and one that declares LDS_CAP_HONORS_CORDON has left them out.
  decision.dirs.reserve(ranked.size());
  for (const uint32_t k : ranked) {
    if (!is_cordoned(candidates[k])) decision.dirs.push_back(indices[k]);
  }
  return !decision.dirs.empty();
}

}  // namespace

void LogManager::set_cordoned(const std::function<bool(const fs::path&)>& is_cordoned) {
  MutexLock lock(mu_);
  for (auto& d : dirs_) d->cordoned = is_cordoned(d->path);
}

void LogManager::set_partition_expected_bytes(uint64_t bytes) {
  MutexLock lock(mu_);
  default_expected_bytes_ = bytes;
}

uint64_t LogManager::new_partition_expected_bytes() const {
  MutexLock lock(mu_);
  return expected_bytes_for(nullptr, 0);
}

void LogManager::set_rate_window(std::chrono::milliseconds window) {
  MutexLock lock(mu_);
  rate_window_seconds_ = std::chrono::duration<double>(window).count();
}

double LogManager::partition_rate(const TopicPartition& tp) const {
  const double now = probe_->now_seconds();
  MutexLock lock(mu_);
  const Partition* p = partitions_.find(tp);
  return p == nullptr ? 0 : p->rate.rate(now, rate_window_seconds_);
}

std::optional<double> LogManager::dir_rate(uint32_t dir_index) const {
  const double now = probe_->now_seconds();
  MutexLock lock(mu_);
  const MemoRateMeter& meter = dirs_.at(dir_index)->rate;
  if (!meter.known(now)) return std::nullopt;
  return meter.rate(now, rate_window_seconds_);
}

void LogManager::record_copy_locked(uint32_t dir_index, uint64_t bytes) {
  dirs_[dir_index]->rate.add(probe_->now_seconds(), bytes, rate_window_seconds_);
}

uint64_t LogManager::expected_rate_for(const TopicStats* topic, uint64_t requested,
                                       double now) const {
  if (requested > 0) return requested;
  if (topic == nullptr || topic->partitions == 0 || !topic->rate.known(now)) return 0;
  return static_cast<uint64_t>(topic->rate.rate(now, rate_window_seconds_) / topic->partitions);
}

uint64_t LogManager::expected_bytes_for(const TopicStats* topic, uint64_t requested) const {
  if (requested > 0) return requested;
  if (default_expected_bytes_ > 0) return default_expected_bytes_;
  // A topic whose partitions hold nothing yet (a burst still being created) says nothing about
  // their size; its mean of 0 would let the whole burst land on one directory.
  if (topic != nullptr && topic->partitions > 0 && topic->bytes > 0) {
    return topic->bytes / topic->partitions;
  }
  if (!partitions_.empty()) return total_bytes_hosted_ / partitions_.size();
  return 0;
}

void LogManager::fill_candidate(uint32_t dir_index, const std::vector<uint32_t>* topic_counts,
                                double now, lds_dir& c) const {
  const Dir& d = *dirs_[dir_index];
  c.struct_size = sizeof(lds_dir);
  c.flags = d.cordoned ? LDS_DIR_CORDONED : 0;
  c.path = d.path_text.c_str();
  c.total_bytes = 0;
  c.usable_bytes = 0;
  c.reserved_bytes = d.reserved.bytes();
  c.partition_count = d.partition_count;
  c.topic_partition_count = topic_counts != nullptr ? (*topic_counts)[dir_index] : 0;
  if (d.rate.known(now)) {
    c.bytes_in_per_sec = static_cast<uint64_t>(d.rate.rate(now, rate_window_seconds_));
  } else {
    c.bytes_in_per_sec = 0;
    c.flags |= LDS_DIR_RATE_UNKNOWN;
  }
}

uint32_t LogManager::fill_candidates(const TopicStats* topic, double now, std::vector<lds_dir>& out,
                                     std::vector<uint32_t>& indices) const {
  const std::vector<uint32_t>* counts = topic_counts_locked(topic);
  // The scratch only grows: sized down and up again, every lds_dir would be written twice. The
  // count and the pointers are read once: through writes to out[] the compiler would read them
  // again for each directory.
  const uint32_t count = static_cast<uint32_t>(dirs_.size());
  if (out.size() < count) out.resize(count);
  if (indices.size() < count) indices.resize(count);
  const std::unique_ptr<Dir>* const dirs = dirs_.data();
  lds_dir* const candidates = out.data();
  uint32_t* const candidate_dirs = indices.data();
  uint32_t n = 0;
  for (uint32_t i = 0; i < count; ++i) {
    if (!dirs[i]->online) continue;
    // Fields are written in place: building an lds_dir on the stack and copying it costs a
    // store-forwarding stall per directory, a third of a whole placement decision.
    fill_candidate(i, counts, now, candidates[n]);
    candidate_dirs[n++] = i;
  }
  return n;
}

void LogManager::tell_placed(const PlacementDecision& decision, const TopicPartition& tp,
                             uint32_t dir_index) const {
  if (!decision.placer || !decision.placer->has_placed()) return;
  lds_dir dir{};
  {
    MutexLock lock(mu_);
    fill_candidate(dir_index, topic_counts_locked(topic_stats_locked(tp.topic)),
                   probe_->now_seconds(), dir);
  }
  fill_dir_space(dir, dir_index, (decision.placer->capabilities() & LDS_CAP_USES_SPACE) != 0);
  const lds_request request{sizeof(lds_request), tp.partition, tp.topic.c_str(),
                            decision.expected_bytes, decision.expected_bytes_in_per_sec};
  decision.placer->placed(request, dir);
}

void LogManager::fill_space(std::span<lds_dir> dirs, std::span<const uint32_t> indices,
                            bool read_space) const {
  if (!read_space) {  // the common case on the placement path: no call per directory
    for (lds_dir& d : dirs) d.flags |= LDS_DIR_SPACE_UNKNOWN;
    return;
  }
  for (size_t k = 0; k < dirs.size(); ++k) fill_dir_space(dirs[k], indices[k], read_space);
}

void LogManager::fill_dir_space(lds_dir& dir, uint32_t dir_index, bool read_space) const {
  // Called without mu_: a directory's path never changes, and statvfs may be slow.
  const DiskSpace space = read_space ? probe_->read(dirs_[dir_index]->path) : DiskSpace{};
  if (space.known && space.total_bytes > 0) {
    dir.total_bytes = space.total_bytes;
    dir.usable_bytes = space.usable_bytes;
  } else {
    dir.flags |= LDS_DIR_SPACE_UNKNOWN;
  }
}

const std::vector<uint32_t>* LogManager::topic_counts_locked(const TopicStats* topic) const {
  return topic != nullptr && topic->per_dir.size() == dirs_.size() ? &topic->per_dir : nullptr;
}

std::vector<lds_dir> LogManager::candidates(
    const std::string& topic, bool read_space, std::vector<uint32_t>* dir_indices,
    const std::function<bool(const fs::path&)>& cordoned) const {
  std::vector<lds_dir> out;
  std::vector<uint32_t> indices;
  {
    MutexLock lock(mu_);
    const uint32_t n =
        fill_candidates(topic_stats_locked(topic), probe_->now_seconds(), out, indices);
    out.resize(n);
    indices.resize(n);
  }
  fill_space(out, indices, read_space);
  if (cordoned) {
    for (size_t k = 0; k < out.size(); ++k) {
      out[k].flags &= ~LDS_DIR_CORDONED;
      if (cordoned(dirs_[indices[k]]->path)) out[k].flags |= LDS_DIR_CORDONED;
    }
  }
  if (dir_indices) *dir_indices = std::move(indices);
  return out;
}

std::shared_ptr<const LoadedStrategy> LogManager::load_strategy(
    StrategyLoadSpec spec, const std::function<bool(const fs::path&)>& cordoned) const {
  const std::vector<lds_dir> dirs = candidates("__lds_dry_run", true, nullptr, cordoned);
  spec.generation = slot_.next_generation();
  spec.dry_run_dirs = dirs;
  spec.placement_count = slot_.placement_count(spec.name);
  try {
    return LoadedStrategy::load(spec);
  } catch (...) {
    slot_.release_generation(spec.generation);
    throw;
  }
}

PlacementDecision LogManager::choose(const std::string& topic, int32_t partition,
                                     std::optional<uint64_t> expected_bytes,
                                     std::optional<uint64_t> expected_bytes_in_per_sec) const {
  Ranking r = timed_decide(topic, partition, expected_bytes, expected_bytes_in_per_sec, false);
  if (r.error != StorageErrc::kNone) throw StorageError(r.error, r.message);
  return std::move(r.decision);
}

LogManager::Ranking LogManager::timed_decide(const std::string& topic, int32_t partition,
                                             std::optional<uint64_t> expected_bytes,
                                             std::optional<uint64_t> expected_bytes_in_per_sec,
                                             bool see_all) const {
  // Acquire: TickClock's calibration, done before the flag was set, is seen here.
  if (!time_placements_.load(std::memory_order_acquire)) {
    return decide(topic, partition, expected_bytes, expected_bytes_in_per_sec, see_all, false);
  }
  const uint64_t started = TickClock::now();
  Ranking r = decide(topic, partition, expected_bytes, expected_bytes_in_per_sec, see_all, false);
  placement_latency_.record(TickClock::since(started));
  return r;
}

void LogManager::set_placement_timing(bool on) {
  if (on) TickClock::calibrate();
  time_placements_.store(on, std::memory_order_release);
}

LogManager::PlacementPreview LogManager::explain_placement(
    const std::string& topic, int32_t partition, std::optional<uint64_t> expected_bytes,
    std::optional<uint64_t> expected_bytes_in_per_sec) const {
  PlacementPreview e;
  e.topic = topic;
  e.partition = partition;
  if (std::string why = layout::topic_name_problem(topic); !why.empty()) {
    e.error = StorageErrc::kInvalidTopicName;
    e.message = std::move(why);
    return e;
  }
  {
    MutexLock lock(mu_);
    if (const Partition* hosted = partitions_.find(TopicPartition{topic, partition})) {
      e.existing_log_dir = dirs_[hosted->dir]->path_text;
      return e;
    }
  }
  Ranking r = decide(topic, partition, expected_bytes, expected_bytes_in_per_sec, true, true);
  explain_ranking_of(r, e);
  e.error = r.error;
  e.message = std::move(r.message);
  return e;
}

void LogManager::explain_ranking_of(const Ranking& r, PlacementExplanation& explain) {
  const PlacementDecision& decision = r.decision;
  explain.expected_bytes = decision.expected_bytes;
  explain.strategy = decision.strategy();
  explain.generation = decision.generation;
  explain.fell_back = decision.fell_back;
  RankingSeen seen;
  seen.log_dirs = r.log_dirs;
  seen.online = r.online;
  seen.candidates = r.candidates;
  seen.indices = r.indices;
  seen.order = r.ranked;
  if (decision.preferred) {
    seen.unranked = "another log directory is preferred for " +
                    TopicPartition{explain.topic, explain.partition}.str() +
                    " (AlterReplicaLogDirs)";
  }
  if (r.by_strategy()) {
    // What the strategy that ranked adds: its keep.free.bytes option, and its scores when it
    // names them.
    seen.keep_free = keep_free_option(*decision.placer);
    if (!decision.placer->score_name().empty()) {
      explain.score_name = decision.placer->score_name();
      seen.scores = r.scores;
    }
  }
  explain_ranking(seen, explain);
}

int LogManager::preferred_dir_locked(const std::string& topic, int32_t partition) const {
  if (preferred_.empty()) return -1;  // the usual case: no key to build
  int preferred = -1;
  if (auto pref = preferred_.find(TopicPartition{topic, partition}); pref != preferred_.end()) {
    for (uint32_t i = 0; i < dirs_.size(); ++i) {
      // A directory cordoned since the preference was remembered takes no new partition.
      if (dirs_[i]->path == pref->second && dirs_[i]->online && !dirs_[i]->cordoned) {
        preferred = static_cast<int>(i);
      }
    }
  }
  return preferred;
}

void LogManager::see_log_dirs_locked(Ranking& r) const {
  r.log_dirs.reserve(dirs_.size());
  r.online.reserve(dirs_.size());
  for (const auto& d : dirs_) {
    r.log_dirs.push_back(d->path_text);
    r.online.push_back(d->online);
  }
}

LogManager::Ranking LogManager::decide(const std::string& topic, int32_t partition,
                                       std::optional<uint64_t> expected_bytes,
                                       std::optional<uint64_t> expected_bytes_in_per_sec,
                                       bool see_all, bool dry_run) const {
  auto strategy = slot_.current();
  const bool read_space = !strategy || (strategy->capabilities() & LDS_CAP_USES_SPACE) != 0;
  // Per-thread scratch: a placement decision allocates nothing once warmed up.
  thread_local std::vector<lds_dir> dirs;
  thread_local std::vector<uint32_t> indices;
  thread_local std::vector<uint32_t> order;
  thread_local std::vector<double> scores;  // the plugin's; read only for an explanation
  Ranking r;
  PlacementDecision& decision = r.decision;
  int preferred = -1;
  uint32_t n = 0;  // candidates: the online directories
  {
    MutexLock lock(mu_);
    const TopicStats* stats = topic_stats_locked(topic);
    const double now = probe_->now_seconds();  // one clock read per decision
    // value_or selects before comparing: `opt && *opt > 0` compiles to a branch on the
    // unset value's bytes when the optional is empty, which Valgrind reports.
    decision.expected_bytes = expected_bytes_for(stats, expected_bytes.value_or(0));
    decision.expected_bytes_in_per_sec =
        expected_rate_for(stats, expected_bytes_in_per_sec.value_or(0), now);
    preferred = preferred_dir_locked(topic, partition);
    if (preferred < 0 || see_all) n = fill_candidates(stats, now, dirs, indices);
    if (see_all) see_log_dirs_locked(r);
  }
  r.candidates = std::span<lds_dir>(dirs.data(), n);
  r.indices = std::span<const uint32_t>(indices.data(), n);
  if (preferred < 0 || see_all)
    fill_space(std::span<lds_dir>(dirs.data(), n), r.indices, read_space);
  if (preferred >= 0) {
    decision.dirs.push_back(static_cast<uint32_t>(preferred));
    decision.preferred = true;
    decision.placer = std::move(strategy);
    if (see_all) {  // the preferred dir is the ranking: its position among the candidates
      const auto at =
          std::find(r.indices.begin(), r.indices.end(), static_cast<uint32_t>(preferred));
      if (order.empty()) order.resize(1);
      order[0] = static_cast<uint32_t>(at - r.indices.begin());
      r.ranked = std::span<const uint32_t>(order.data(), 1);
    }
    return r;
  }
  if (n == 0) {
    std::string all;
    for (const auto& d : dirs_) all += (all.empty() ? "" : ", ") + d->path_text;
    r.error = StorageErrc::kDirUnavailable;
    r.message = "No log directories available. Tried " + all;
    return r;
  }
  // Cordons are the host's guarantee, whatever the strategy (KIP-1066): with every candidate
  // cordoned there is nothing to rank.
  if (std::all_of(r.candidates.begin(), r.candidates.end(), is_cordoned)) {
    r.error = StorageErrc::kEveryDirCordoned;
    r.message = kEveryDirCordoned;
    return r;
  }
  if (order.size() < n) order.resize(n);
  if (scores.size() < n) scores.resize(n);
  lds_request request{sizeof(lds_request), partition, topic.c_str(), decision.expected_bytes,
                      decision.expected_bytes_in_per_sec};
  RankOutcome outcome =
      slot_.rank(std::move(strategy), request, r.candidates, std::span<uint32_t>(order.data(), n),
                 dry_run ? LDS_RANK_PREVIEW : LDS_RANK_PLACE, std::span<double>(scores.data(), n));
  take_ranker(decision, outcome);
  r.scores = std::span<const double>(scores.data(), n);
  if (outcome.status != LDS_OK) {
    r.error = StorageErrc::kDirUnavailable;
    r.message = "No eligible log directory for " + TopicPartition{topic, partition}.str() + ": " +
                outcome.message + ".";
    return r;
  }
  r.ranked = std::span<const uint32_t>(order.data(), outcome.order_len);
  if (!keep_uncordoned(decision, r.candidates, r.indices, r.ranked)) {
    r.error = StorageErrc::kDirUnavailable;
    r.message = "No eligible log directory for " + TopicPartition{topic, partition}.str() +
                ": strategy " + decision.strategy() + " ranked only cordoned log directories.";
  }
  return r;
}

LogManager::PlacementRecall LogManager::past_placement(const TopicPartition& tp) const {
  PlacementRecall recall;
  {
    MutexLock lock(mu_);
    const Partition* p = partitions_.find(tp);
    if (p == nullptr) {
      throw StorageError(StorageErrc::kUnknownPartition,
                         "This broker does not host partition " + tp.str() + ".");
    }
    recall.log_dir = dirs_[p->dir]->path_text;
  }
  recall.placement = history_.find(tp.topic, tp.partition);
  return recall;
}

void LogManager::remember_preferred_dir(const TopicPartition& tp, const fs::path& dir) {
  MutexLock lock(mu_);
  preferred_[tp] = dir;
}

void LogManager::forget_preferred_dir(const TopicPartition& tp) {
  MutexLock lock(mu_);
  preferred_.erase(tp);
}

}  // namespace lds
