// log_manager.h: the broker-side LogManager: log directories, hosted partitions, placement,
// appends.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "io/disk_probe.h"
#include "model/topic_partition.h"
#include "placement/placement_decision.h"
#include "placement/placement_explanation.h"
#include "placement/placement_history.h"
#include "storage/clean_shutdown.h"
#include "storage/in_memory_storage.h"
#include "storage/log_dir_description.h"
#include "storage/partition_log.h"
#include "storage/partition_table.h"
#include "storage/pending_deletions.h"
#include "storage/replica_host.h"
#include "storage/storage_error.h"
#include "strategy/strategy_slot.h"
#include "util/errors.h"  // ConfigError, PluginError
#include "util/latency_histogram.h"
#include "util/mutex.h"
#include "util/rate_meter.h"

namespace lds {

// What a DeleteTopic did.
struct DeletedTopic {
  uint32_t deleted = 0;  // replicas removed now
  // Replicas on offline directories: no longer served, recorded durably, and removed at the next
  // start that finds their directory readable.
  std::vector<PendingDeletion> pending;
};

class ReplicaMover;
struct HostedPartition;  // storage/hosted_partition.h
struct LogDir;           // storage/log_dir.h

// Its ReplicaMover reaches its state through ReplicaHost alone.
class LogManager final : private ReplicaHost, private InMemoryStorage {
 public:
  struct Options {
    int32_t broker_id = 0;
    // cluster.id: what every meta.properties must hold and new ones get; empty: the one the
    // directories hold, or a generated one.
    std::string cluster_id;
    std::vector<std::filesystem::path> log_dirs;  // canonical, log.dirs order
    // No filesystem access at all: directories, partitions and appends are bookkeeping only. For
    // the in-memory placement path of benchmarks, stress tests and the simulator.
    bool in_memory = false;
    // Threads that copy replicas between directories (num.replica.alter.log.dirs.threads).
    int32_t mover_threads = 1;
    // The record of deletions pending on offline directories (PendingDeletions); empty: none is
    // kept, and such a replica comes back at the next start.
    std::filesystem::path pending_deletions_file;
    // How many of the most recent placements keep their explanation for past_placement()
    // (PlacementHistory::kDefaultCapacity for a broker); 0 keeps none, and a creation then builds
    // no explanation unless debug logging is on.
    size_t kept_placements = 0;
  };

  // The answer to one partition of an AlterReplicaLogDirs request.
  struct AlterResult {
    StorageErrc error = StorageErrc::kNone;
    std::string message;
  };

  LogManager(Options options, std::shared_ptr<const DiskProbe> probe, StrategySlot& slot);
  ~LogManager();
  LogManager(const LogManager&) = delete;
  LogManager& operator=(const LogManager&) = delete;

  // Takes the lock on every log directory (<dir>/.lock, io/dir_lock.h) before reading or
  // changing anything in any of them, and holds them while this LogManager lives; then checks every
  // meta.properties (storage/meta_properties.h), creates missing directories and writes Kafka's
  // version 1 meta.properties into new ones, removes leftover -delete directories, finishes or
  // discards interrupted moves, and rebuilds counts and sizes from what is on disk. A directory
  // that cannot be created, locked, written or read is marked offline.
  // Throws ConfigError, having changed nothing in any directory, when a lock is held by another
  // process (or another LogManager), when a meta.properties is unreadable or malformed or names
  // another node or cluster; and, with every directory offline, naming each and its fault.
  // The in-memory mode takes no locks and touches nothing.
  void startup();

  // A clean shutdown, once nothing appends any more: stops the moves, then records in each online
  // directory its logs' end offsets and Kafka's clean-shutdown marker (storage/clean_shutdown.h),
  // so that the next start takes those logs as they are instead of reading their last segments
  // through. A directory where that cannot be written gets one WARN line and no marker: its logs
  // are read through at the next start. The in-memory mode writes nothing.
  void shutdown();

  // Called when mark_offline() takes the last online directory offline, once startup() has
  // finished, with Kafka's sentence "Shutdown broker because all log dirs in <dir>, <dir> have
  // failed". Runs on the thread that hit the failure, without the state lock. `lds-host serve`
  // installs one that logs the sentence and ends the process (Kafka halts); without one (the
  // simulator, tests) the LogManager keeps answering with every directory offline.
  void set_on_all_dirs_offline(std::function<void(const std::string& sentence)> callback);

  // Dynamic configuration.
  void set_cordoned(const std::function<bool(const std::filesystem::path&)>& is_cordoned);
  void set_partition_expected_bytes(uint64_t bytes);
  // The expected bytes of a partition of a new topic, as a placement would estimate it now:
  // log.partition.expected.bytes, else the mean size of the hosted partitions, else 0.
  uint64_t new_partition_expected_bytes() const;
  // log.dir.rate.window.ms: the time constant of the append rates (util/rate_meter.h).
  void set_rate_window(std::chrono::milliseconds window);

  // Append rates, measured by the DiskProbe's clock since this LogManager was built (a restart
  // starts them unknown). A partition's counts its appends; a directory's counts the appends to
  // its replicas and the bytes moves copy into it.
  // Bytes per second appended to `tp` recently; 0 while unknown or when `tp` is not hosted.
  double partition_rate(const TopicPartition& tp) const;
  // Bytes per second into log directory `dir_index`; nullopt while it has no history yet.
  std::optional<double> dir_rate(uint32_t dir_index) const;

  // Kafka's createLog: a remembered preference wins; otherwise the active strategy ranks the online
  // directories; each is tried in order and an I/O error marks it offline. A directory whose
  // filesystem is full refuses the creation and stays online, and the next one is tried. A
  // cordoned directory is never used, whatever the strategy. Throws StorageError:
  // kInvalidTopicName (an invalid name, or a new topic whose name collides with a hosted one's),
  // kInvalidPartition, kEveryDirCordoned (every online directory cordoned), kDirUnavailable
  // ("Cannot create t-0 in /d1: its filesystem is full (No space left on device); the log
  // directory stays online.", one sentence per directory, when
  // every directory tried was full; "No log directories available. Tried ...", followed by those
  // sentences, when some failed; or nothing eligible).
  // `expected_bytes_in_per_sec` is the request's rate estimate (lds_request, ABI 1.1); without one
  // the mean rate of the topic's hosted partitions is sent, else 0.
  PlacementResult create_partition(
      const std::string& topic, int32_t partition,
      std::optional<uint64_t> expected_bytes = std::nullopt,
      std::optional<uint64_t> expected_bytes_in_per_sec = std::nullopt);

  // The placement decision alone: snapshot of the online directories, rank through the active
  // strategy (with the per-call fallback), no disk I/O except reading sizes for strategies that use
  // them. Cordoned directories are left out of the strategy's ranking. Decisions run concurrently
  // with each other and with strategy swaps. Throws StorageError kEveryDirCordoned when
  // every online directory is cordoned, kDirUnavailable when nothing is eligible.
  PlacementDecision choose(const std::string& topic, int32_t partition,
                           std::optional<uint64_t> expected_bytes = std::nullopt,
                           std::optional<uint64_t> expected_bytes_in_per_sec = std::nullopt) const;

  // `create --dry-run`: what create_partition would decide now, explained
  // (placement/placement_explanation.h), through the same decision, and nothing created, reserved
  // or counted: the strategy's rank is called (a strategy that keeps state, such as round robin,
  // moves on), but a refused answer is not counted as a fallback. When nothing is eligible, the
  // explanation carries the error a creation would answer; an existing replica, where it is.
  struct PlacementPreview : PlacementExplanation {
    // What a creation would refuse with when nothing is eligible (kNone otherwise).
    StorageErrc error = StorageErrc::kNone;
    std::string message;
  };
  PlacementPreview explain_placement(
      const std::string& topic, int32_t partition,
      std::optional<uint64_t> expected_bytes = std::nullopt,
      std::optional<uint64_t> expected_bytes_in_per_sec = std::nullopt) const;

  // What past_placement() answers: where the replica is now, and its last placement while kept.
  struct PlacementRecall {
    std::string log_dir;
    std::optional<PastPlacement> placement;  // nullopt: placed before this LogManager started,
                                             // or before its kept_placements latest placements
  };
  // `lds-host explain`: why a hosted partition is where it is, as its creation decided it. Throws
  // StorageError kUnknownPartition when `tp` is not hosted.
  PlacementRecall past_placement(const TopicPartition& tp) const;
  size_t kept_placements() const { return history_.capacity(); }

  // The admin API's Produce: appends record batches of filler records totalling exactly `bytes`
  // (at least kafka::kMinBatchBytes, 68), each record's value the payload pattern of its offset
  // (layout::fill_payload), so a copy can be checked record by record; returns the partition's
  // size afterwards. Throws StorageError kAppendTooShort for fewer than 68 bytes. An in-memory
  // LogManager counts the bytes alone, of any number.
  // Throws StorageError kUnknownPartition or kDirUnavailable; an append larger than its
  // directory's usable bytes less the reservations of other partitions there is refused before a
  // byte is written, and the directory stays online.
  uint64_t append(const std::string& topic, int32_t partition, uint64_t bytes);
  // Where a partition's log stands: the offset of its first record, and the offset the next record
  // appended gets (the log end offset, which is also the high watermark: there are no followers).
  struct LogOffsets {
    int64_t log_start_offset = 0;
    int64_t log_end_offset = 0;
  };

  // Kafka's Produce: appends `batches`, one or more whole record batches (magic 2) as a client sent
  // them, after checking every batch's framing and CRC32C, and gives their records offsets from
  // the log end offset on by rewriting each baseOffset (it lies outside the CRC). All or nothing:
  // a refused request appends no batch. Returns the offset of the first record appended. Throws
  // StorageError kCorruptBatch (framing or CRC), kInvalidBatch (a magic other than 2, a record
  // count other than lastOffsetDelta + 1), kBatchTooLarge (a batch larger than
  // message.max.bytes), kBatchesTooLarge (larger than log.segment.bytes),
  // kUnknownPartition, or kDirUnavailable as append() does. `validate` is
  // PartitionLog::check_batches' hook: the Kafka listener's checks of each batch after its framing,
  // size and CRC, which throw (KafkaError, for the Kafka listener) to refuse the request; that
  // exception passes through as it is.
  int64_t append_batches(const TopicPartition& tp, std::string batches,
                         const PartitionLog::BatchValidator& validate = nullptr);

  // Kafka's Fetch of one partition: whole batches, from the one holding `offset` on (it may start
  // before `offset`, as Kafka's do; clients skip what they did not ask for), at most `max_bytes`
  // together, except that the first batch is returned whole however large (KIP-74). Nothing at
  // the log end offset. Throws StorageError kOffsetOutOfRange when `offset` is below the log start
  // offset or past the log end offset, kUnknownPartition, kDirUnavailable.
  // The batches are a slice of their segment, held open for the caller to send from
  // (PartitionLog::slice), or their bytes: when fewer than kSmallestSlice, when slice_budget()
  // slices are open already, or when not all in the page cache (read here, so that a slow disk
  // holds the caller's thread, not the one that sends). An in-memory LogManager has none.
  struct ReadResult {
    std::string bytes;
    FileSlice file;
    int64_t next_offset = 0;  // after the last batch; the offset asked for when there is none
    LogOffsets offsets;       // as they stood when the batches were read
    uint64_t size() const { return file.file ? file.length : bytes.size(); }
  };
  static constexpr uint64_t kSmallestSlice = 16 << 10;
  // A read that fails on the disk takes its directory offline, as an append does.
  ReadResult read(const TopicPartition& tp, int64_t offset, uint64_t max_bytes);

  // ListOffsets' earliest (log start) and latest (log end) offsets. Throws StorageError
  // kUnknownPartition.
  LogOffsets log_offsets(const TopicPartition& tp) const;

  // ListOffsets by time: the first batch whose max timestamp is at least `timestamp`
  // (PartitionLog::batch_at_timestamp), for the caller to pick the first record at or after it;
  // nullopt when none is (and always for an in-memory LogManager). Throws StorageError
  // kUnknownPartition or kDirUnavailable, as read() does.
  std::optional<std::string> batch_at_timestamp(const TopicPartition& tp, int64_t timestamp);

  // log.segment.bytes: an append that would take a non-empty active segment past this size rolls
  // a new segment first, named by the offset of its first record.
  void set_segment_bytes(uint64_t bytes);
  // message.max.bytes: append_batches() refuses a record batch larger than this with
  // kBatchTooLarge, writing nothing of the request's batches.
  void set_max_message_bytes(uint64_t bytes);
  // log.index.interval.bytes: the bytes between two entries of a segment's offset index.
  void set_index_interval_bytes(uint32_t bytes);

  // Deletes every partition of `topic`. A replica on an offline directory (or on one that fails
  // now) is recorded as pending before it stops being served, and removed at the next start.
  // Throws kUnknownPartition, or kDirUnavailable when the record cannot be written
  // (the replicas not recorded stay hosted).
  DeletedTopic delete_topic(const std::string& topic);

  std::vector<LogDirDescription> describe() const;

  // The candidates a placement of `topic` would be ranked over now (online directories, log.dirs
  // order) and their log-dir indices. `cordoned`, when given, replaces the current cordons for this
  // snapshot only (the dry run of a config change that is not applied yet).
  std::vector<lds_dir> candidates(
      const std::string& topic, bool read_space, std::vector<uint32_t>* dir_indices,
      const std::function<bool(const std::filesystem::path&)>& cordoned = nullptr) const;

  // Loads spec's strategy with a fresh generation and a dry-run rank on the current online
  // directories (cordoned as `cordoned` says, when given), without publishing it. The one way a
  // strategy is loaded for this LogManager. Throws PluginError.
  std::shared_ptr<const LoadedStrategy> load_strategy(
      StrategyLoadSpec spec,
      const std::function<bool(const std::filesystem::path&)>& cordoned = nullptr) const;

  // KIP-113: the next creation of `tp` goes to `dir` (canonical, one of log.dirs).
  void remember_preferred_dir(const TopicPartition& tp, const std::filesystem::path& dir);
  void forget_preferred_dir(const TopicPartition& tp);

  // KIP-113 AlterReplicaLogDirs for one replica. `destination` is an absolute path or "any".
  // Starts (or restarts towards a new destination) a move that copies the replica into
  // <dest>/<topic>-<partition>.<id>-future while appends continue, then swaps it in; "any" cancels
  // a move in progress and any remembered preference. A replica not hosted yet gets
  // kReplicaNotAvailable and the destination is remembered for its creation.
  AlterResult alter_replica_log_dir(const TopicPartition& tp, const std::string& destination);
  // replica.alter.log.dirs.io.max.bytes.per.second, for all moves together (the catch-up of each
  // included): kNoMoveThrottle (or more) is none; 0 holds every move without copying until it is
  // raised. Applies to running moves.
  void set_move_throttle(uint64_t bytes_per_second);
  // `listener` runs on a mover thread, no lock of this LogManager held, each time a move ends
  // (completed, failed or cancelled); replacing it waits for a call in progress. Empty: none.
  void set_move_ended_listener(std::function<void()> listener);
  // Moves queued or running.
  size_t moves_in_progress() const;
  // What moves did since start, for the metrics.
  struct MoveCounters {
    uint64_t copied_bytes = 0;           // copied into destinations, catch-up included
    uint64_t failed_no_space = 0;        // the destination's filesystem was full
    uint64_t failed_no_descriptors = 0;  // the broker ran out of descriptors or memory
    uint64_t failed_disk_error = 0;      // the source's or destination's disk failed
    uint64_t failed_dir_offline = 0;     // stopped: its source or destination went offline
  };
  MoveCounters move_counters() const;
  // The last failed move of each hosted replica that has one, by partition name. A move fails
  // alone (its future copy removed, the destination online unless its disk failed) when the
  // destination runs out of space, the broker of descriptors, or its final name is taken.
  std::vector<FailedMoveDescription> failed_moves() const;
  // The levers of a LogManager without disks (Options::in_memory), for the simulator; null for
  // one on disks.
  InMemoryStorage* in_memory_storage() { return options_.in_memory ? this : nullptr; }

  size_t partition_count() const;
  // The hosted partitions (current replicas, not future copies), sorted by topic, then partition.
  std::vector<TopicPartition> hosted_partitions() const;
  // Those of them whose log directory is offline: still this broker's, but neither read nor
  // written until a restart finds the directory again. Sorted as hosted_partitions().
  std::vector<TopicPartition> offline_partitions() const;
  // Replicas whose deletion waits for their offline directory (the pending-deletions record).
  size_t pending_deletion_count() const;

  // Placement timing, for the metrics: while on, each placement decision (choose() and
  // create_partition()'s) records how long it took in placement_latency(), read with TickClock.
  // Off by default, so a broker without a metrics listener reads no clock for it.
  void set_placement_timing(bool on);
  const LatencyHistogram& placement_latency() const { return placement_latency_; }
  // Partitions created in a KIP-113 preferred dir (AlterReplicaLogDirs before the replica
  // existed), which no strategy ranked; the others count in the strategy's placement count.
  uint64_t preferred_placements() const {
    return preferred_placements_.load(std::memory_order_relaxed);
  }
  // Kafka's controller refuses a new topic whose name collides with an existing one's
  // (layout::topic_names_collide): its sentence for `topic` when it is not hosted and collides
  // with a hosted topic (the least such name), or "". create_partition() applies it.
  std::string topic_collision_problem(const std::string& topic) const;
  // The cluster.id this broker belongs to, set by startup(): the configured one, else the one the
  // log directories' meta.properties hold, else the one written into new directories (in memory:
  // the configured one, else a generated one). Empty before startup().
  std::string cluster_id() const;
  const std::vector<std::filesystem::path>& log_dirs() const { return options_.log_dirs; }
  // Marks a directory offline (after an I/O error), logging why.
  void mark_offline(uint32_t dir_index, const std::string& reason) override;
  // Index of `dir` in log.dirs, or -1.
  int dir_index(const std::filesystem::path& dir) const;

 private:
  // InMemoryStorage (in_memory_storage.h), offered by in_memory_storage() alone.
  uint64_t add_existing_bytes(const TopicPartition& tp, uint64_t bytes) override;
  uint64_t advance_move(const TopicPartition& tp, uint64_t bytes) override;
  void mark_online(uint32_t dir_index) override;

  using Dir = LogDir;
  using Partition = HostedPartition;

  // ReplicaHost: what its ReplicaMover reaches, under mu_ where _locked.
  Mutex& state_mutex() const override RETURN_CAPABILITY(mu_) { return mu_; }
  LogDir& log_dir(uint32_t dir) const override { return *dirs_[dir]; }
  bool in_memory() const override { return options_.in_memory; }
  DiskSpace read_space(uint32_t dir) const override;

  // One placement decision as decide() returns it, before anything is explained or created. (Its
  // move may allocate, as PlacementDecision's does.)
  struct Ranking {  // NOLINT(bugprone-exception-escape)
    PlacementDecision decision;
    // Why nothing can be placed: kNone when decision.dirs holds where to try.
    StorageErrc error = StorageErrc::kNone;
    std::string message;
    // What it was decided on, in this thread's scratch (valid until its next decision): the
    // candidates as the strategy got them, their log-dir indices, the ranking used (candidate
    // positions, best first), and the strategy's scores when its own ranking was used.
    std::span<const lds_dir> candidates;
    std::span<const uint32_t> indices;
    std::span<const uint32_t> ranked;
    std::span<const double> scores;
    // The strategy ranked, and its answer was used (no preference decided, no fallback).
    bool by_strategy() const {
      return decision.placer && !decision.fell_back && !decision.preferred;
    }
    // Every log directory and whether it is online, when decide() was asked to see them all.
    std::vector<std::string> log_dirs;
    std::vector<bool> online;
  };
  // decide(), its time recorded in placement_latency_ while placement timing is on.
  Ranking timed_decide(const std::string& topic, int32_t partition,
                       std::optional<uint64_t> expected_bytes,
                       std::optional<uint64_t> expected_bytes_in_per_sec, bool see_all) const;
  // The placement decision, as a value: the candidates, the ranking and the outcome. Changes
  // nothing but the strategy's own state (its rank is called; a refused answer counts as a
  // fallback unless `dry_run`). `see_all` also snapshots every log directory, and the candidates
  // when a preference decides, for an explanation (explain_ranking_of).
  Ranking decide(const std::string& topic, int32_t partition,
                 std::optional<uint64_t> expected_bytes,
                 std::optional<uint64_t> expected_bytes_in_per_sec, bool see_all,
                 bool dry_run) const;
  // Fills `explain` with what `r` decided and why, from a decide() that saw all.
  static void explain_ranking_of(const Ranking& r, PlacementExplanation& explain);
  // The directory remembered as `tp`'s preference (AlterReplicaLogDirs) when it is online and
  // not cordoned, else -1 (mu_ held).
  int preferred_dir_locked(const std::string& topic, int32_t partition) const REQUIRES(mu_);
  // Every log directory and whether it is online, as an explanation lists them (mu_ held).
  void see_log_dirs_locked(Ranking& r) const REQUIRES(mu_);
  // create_partition(), create_mu_ held: creates `tp` in the first of `decision`'s directories
  // that takes it, keeping its `explanation` when there is one. Throws as create_partition().
  PlacementResult create_in_ranked_dirs_locked(const TopicPartition& tp,
                                               const PlacementDecision& decision,
                                               std::optional<PlacementExplanation>& explanation)
      REQUIRES(create_mu_);
  // create_partition(), create_mu_ held: hosts `tp`, just created in directory `dir` with
  // `replica_id`, counts the placement, and keeps its `explanation` when there is one.
  PlacementResult host_new_partition_locked(uint32_t dir, const TopicPartition& tp,
                                            const PlacementDecision& decision,
                                            const std::string& replica_id,
                                            std::optional<PlacementExplanation>& explanation)
      REQUIRES(create_mu_);

  struct TopicStats;
  const TopicStats* topic_stats_locked(const std::string& topic) const
      REQUIRES(mu_);  // null if not hosted
  // The request's estimate if it has one (> 0), then config, topic mean, global mean.
  uint64_t expected_bytes_for(const TopicStats* topic, uint64_t requested) const REQUIRES(mu_);
  // The request's rate if it has one (> 0), then the topic's mean partition rate, else 0.
  uint64_t expected_rate_for(const TopicStats* topic, uint64_t requested, double now) const
      REQUIRES(mu_);
  // A move copied `bytes` into directory `dir_index` (mu_ held).
  void record_copy_locked(uint32_t dir_index, uint64_t bytes) override REQUIRES(mu_);
  // The online directories as candidates (mu_ held), then their filesystem sizes (mu_ not held).
  // Writes the first n of `out` and `indices` (grown to the directory count when smaller) and
  // returns n.
  uint32_t fill_candidates(const TopicStats* topic, double now, std::vector<lds_dir>& out,
                           std::vector<uint32_t>& indices) const REQUIRES(mu_);
  // One directory's lds_dir, as fill_candidates writes it (mu_ held), then its filesystem size
  // (mu_ not held).
  void fill_candidate(uint32_t dir_index, const std::vector<uint32_t>* topic_counts, double now,
                      lds_dir& c) const REQUIRES(mu_);
  void fill_dir_space(lds_dir& dir, uint32_t dir_index, bool read_space) const;
  // The topic's replicas per log dir, or null when it has none to count (mu_ held).
  const std::vector<uint32_t>* topic_counts_locked(const TopicStats* topic) const REQUIRES(mu_);
  // Tells `decision.placer` that `tp` was created in directory `dir_index` (ABI 1.2 placed).
  void tell_placed(const PlacementDecision& decision, const TopicPartition& tp,
                   uint32_t dir_index) const;
  void fill_space(std::span<lds_dir> dirs, std::span<const uint32_t> indices,
                  bool read_space) const;
  // Creates <dir>/<topic>-<partition>/ with an empty first segment, and its lds.partition with
  // `expected_bytes` and `replica_id`. Returns "" once created, or the sentence refusing the
  // creation when the directory's filesystem is full (ENOSPC or EDQUOT at any step; nothing of it
  // is left, and the directory stays online, so the next directory may be tried). Throws
  // StorageError for a name the filesystem cannot hold or a stray entry at the name (the directory
  // stays online), FileError for the disk's failures (EROFS, EIO, ...: the caller marks the
  // directory offline).
  [[nodiscard]] std::string create_on_disk(uint32_t dir_index, const TopicPartition& tp,
                                           uint64_t expected_bytes, const std::string& replica_id);
  // startup(): locks every directory, then reads and checks every meta.properties, then writes the
  // missing ones; marks offline the directories that fail (log_manager/dir_claims.cpp).
  void open_dirs();
  // open_dirs(): locks every directory, those with a lock file first; `faults` gets, by directory,
  // why one cannot be created or locked. Throws ConfigError, every lock released, when a lock is
  // held elsewhere.
  void lock_dirs(std::vector<std::string>& faults);
  // Locks directory `dir_index`, created first with `create`; `fault` gets why it cannot be.
  void lock_dir(uint32_t dir_index, bool create, std::string& fault);
  void release_dir_locks();
  // The directory.id its meta.properties holds, or one derived from its path when it holds none.
  void adopt_directory_id(uint32_t dir_index, const std::optional<std::string>& directory_id);
  // Writes a new directory's meta.properties with `directory_id`, and takes that id. Returns "",
  // or why the file cannot be written.
  [[nodiscard]] std::string write_meta_properties(uint32_t dir_index, const std::string& cluster_id,
                                                  const std::string& directory_id);
  // startup(): throws ConfigError naming every directory and its fault when none is online.
  void refuse_unless_a_dir_is_online();
  // startup(): scans every online directory and resolves what it finds (recover_moves). Whatever
  // the scan holds is freed by the time it returns.
  void load_logs();
  // Scans one directory without changing it: returns the names of its partition, -future and
  // -delete directories for recover_moves(), and logs every stray entry once, saying why it is
  // ignored. Names, not paths: a path keeps each of its components apart, several times the size.
  std::vector<std::string> load_dir(uint32_t dir_index);
  // Resolves the copies of every partition the scan found (log_manager/recovery.cpp): finishes or
  // discards interrupted moves, removes -delete directories nothing needs, and adds the served
  // copies. Throws ConfigError, having deleted nothing, for two copies no move explains (Kafka's
  // "Duplicate log directories" sentence) or a move whose final name is taken by a stray entry.
  // `clean` holds, by directory, the clean shutdown it recorded: the logs it lists are taken as
  // they are (PartitionLog::trusted) instead of being read through.
  // `entries` holds each found directory as (log.dirs index, name).
  void recover_moves(const std::vector<std::pair<uint32_t, std::string>>& entries,
                     const std::vector<std::optional<CleanShutdown>>& clean);
  // recover_moves()'s steps, which pass the scan's copies from one to the next: classify, decide,
  // apply (log_manager/recovery.cpp).
  class MoveRecovery;
  // Startup, once the logs are loaded and before anything is appended: removes the clean-shutdown
  // marker of every online directory. One where that fails goes offline.
  void forget_clean_shutdowns();
  // Startup, before any directory is scanned: removes the replicas whose deletion is pending in a
  // directory that is readable again; a directory where that fails is marked offline. Throws
  // ConfigError when the record cannot be read or rewritten.
  void complete_pending_deletions();
  // complete_pending_deletions(): the index of the online log.dirs entry that now holds the disk
  // of `e` (its directory.id, wherever it is mounted); else -1, with `wait` saying why `e` stays
  // pending, or `wait` empty when that disk is gone and `e` is dropped.
  int locate_pending_deletion(const PendingDeletion& e, std::string& wait) const;
  // Removes `e`'s replica from directory `dir` (online, with `e`'s directory.id) when it is there
  // and is that replica (its replica.id, when `e` names one); throws on a disk failure.
  void complete_pending_deletion(uint32_t dir, const PendingDeletion& e);
  // Records `pending` before those replicas stop being served; throws kDirUnavailable.
  void record_pending_deletions(const std::vector<PendingDeletion>& pending);
  // delete_topic(), p's I/O lock held: removes p's directory (renamed to a -delete name first).
  // Returns its pending deletion when its directory is offline, or goes offline now. Throws
  // kDirUnavailable for a -delete name the filesystem cannot hold, saying that
  // `deleted_before` replicas of the topic were deleted before it.
  std::optional<PendingDeletion> delete_replica_files_locked(const Partition& p,
                                                             uint32_t deleted_before);
  // A finished move's old copy of `tp` in directory `dir` that could not be renamed aside
  // (`reason`): its deletion is recorded as pending, so that the next start that finds the
  // directory readable removes it before anything is served. The move marker in the new copy says
  // which copy is current only while that copy exists; once the partition is deleted or moved
  // again, the old copy would otherwise be served again after a restart. Never throws: a record
  // that cannot be written is logged.
  void record_stale_copy(uint32_t dir, const TopicPartition& tp,
                         const std::string& reason) override;
  // The record of `tp`'s replica `replica_id` in directory `dir` (mu_ held); _of: where `p` is
  // hosted.
  PendingDeletion pending_deletion_in(uint32_t dir, const TopicPartition& tp,
                                      const std::string& replica_id,
                                      const std::string& reason) const;
  PendingDeletion pending_deletion_of(const Partition& p, const std::string& reason) const;
  // Hosts `tp` in directory `dir_index` with `log` (its size is the partition's); `replica_id` is
  // its lds.partition's ("" when it has none).
  void add_partition(uint32_t dir_index, const TopicPartition& tp, PartitionLog log,
                     uint64_t expected, std::string_view replica_id);
  // The hosted partition `tp` on an online directory; throws StorageError kUnknownPartition
  // or kDirUnavailable (mu_ not held).
  std::shared_ptr<Partition> hosted_online(const TopicPartition& tp) const;
  // Appends `batches` (checked, or built here) to p, whose I/O lock is held: offsets, the
  // segment, the bookkeeping. A write failure is classified as out of space or descriptors (the
  // directory stays online) or a disk failure (it goes offline), and thrown as StorageError whose
  // sentence says that `done` of `requested` bytes were appended. Returns the first offset.
  int64_t write_batches_locked(Partition& p, std::string& batches, uint64_t requested,
                               uint64_t done);
  // Counts a replica (current or future) of `topic` in a directory, or uncounts it (delta -1).
  void count_replica_locked(uint32_t dir_index, const std::string& topic, int delta) override
      REQUIRES(mu_);
  Mutex& io_of(const TopicPartition& tp) const override;
  void remove_partition_locked(const TopicPartition& tp) REQUIRES(mu_);
  // `written` bytes were appended to p; they count in the append rates unless `existing`.
  void record_append_locked(Partition& p, uint64_t written, bool existing = false) REQUIRES(mu_);
  // Throws kDirUnavailable when p's directory cannot take `bytes` more: its usable bytes less
  // what is reserved there for other partitions and moves. p's I/O lock is held.
  void refuse_append_past_free_space(const Partition& p, uint64_t bytes) const;
  // Each directory's filesystem as the probe reads it (DiskSpace::filesystem), 0 for an offline
  // one or when unknown; read without mu_.
  std::vector<uint64_t> dir_filesystems() const override;
  // What is reserved on directory `dir`'s filesystem (mu_ held): its reservations and those of
  // the online directories sharing its filesystem, by `filesystems` from dir_filesystems().
  uint64_t reserved_on_filesystem_locked(uint32_t dir,
                                         const std::vector<uint64_t>& filesystems) const override
      REQUIRES(mu_);
  // A move promoted p into directory `to`, which already counts it (it counted the future copy).
  void relocate_locked(Partition& p, uint32_t to) override REQUIRES(mu_);
  // Runs `read` on the partition's log where it lives, under its I/O lock: a read that fails on
  // the disk takes the directory offline (kDirUnavailable), unless it only lacked memory or
  // descriptors.
  template <typename ReadFn>
  auto read_log_locked(const Partition& p, ReadFn&& read);

  Options options_;
  std::shared_ptr<const DiskProbe> probe_;
  StrategySlot& slot_;

  Mutex create_mu_;  // serialises creations and deletions, as Kafka's logCreationOrDeletionLock
  // Guards the fields below up to pending_mu_. startup() reads and writes them before any other
  // thread may, without it.
  mutable Mutex mu_;
  // Fixed at construction, one per log.dirs entry; what changes in a Dir, mu_ guards
  // (storage/log_dir.h).
  std::vector<std::unique_ptr<Dir>> dirs_;
  PartitionTable partitions_ GUARDED_BY(mu_);
  struct TopicStats {
    uint32_t partitions = 0;        // hosted partitions
    uint64_t bytes = 0;             // their bytes
    std::vector<uint32_t> per_dir;  // replicas per log dir, current and future
    MemoRateMeter rate;             // appends to all its partitions, for their mean rate
  };
  std::unordered_map<std::string, TopicStats> topics_ GUARDED_BY(mu_);
  // The topic topic_stats_locked() last found, and its entry: a CreateTopics places its partitions
  // one after another, so a decision mostly looks up the topic the one before it did, and a string
  // compare replaces a hash. Cleared when that topic's entry goes.
  mutable std::string last_topic_ GUARDED_BY(mu_);
  mutable const TopicStats* last_topic_stats_ GUARDED_BY(mu_) = nullptr;
  std::string cluster_id_ GUARDED_BY(mu_);  // set once by startup()
  uint64_t total_bytes_hosted_ GUARDED_BY(mu_) = 0;
  uint64_t default_expected_bytes_ GUARDED_BY(mu_) = 0;
  double rate_window_seconds_ GUARDED_BY(mu_) = 300;        // log.dir.rate.window.ms
  std::atomic<uint64_t> segment_bytes_{uint64_t{1} << 30};  // log.segment.bytes
  std::atomic<uint64_t> max_message_bytes_{1048588};        // message.max.bytes
  std::atomic<uint32_t> index_interval_bytes_{kDefaultIndexIntervalBytes};
  std::unordered_map<TopicPartition, std::filesystem::path, TopicPartitionHash> preferred_
      GUARDED_BY(mu_);
  bool started_ GUARDED_BY(mu_) = false;  // startup() has finished
  std::function<void(const std::string&)> on_all_dirs_offline_ GUARDED_BY(mu_);
  // A leaf lock: taken last (under create_mu_ or an I/O lock), nothing taken under it.
  mutable Mutex pending_mu_;
  PendingDeletions pending_deletions_;  // guarded by pending_mu_, except in startup()
  PlacementHistory history_;            // the last explanation of each recent creation
  std::atomic<bool> time_placements_{false};
  mutable LatencyHistogram placement_latency_;
  std::atomic<uint64_t> preferred_placements_{0};

  // Striped I/O locks: one serialises a partition's appends, its deletion and a move's final phase.
  static constexpr size_t kIoStripes = 256;
  mutable Mutex io_stripes_[kIoStripes];

  // Replica moves (KIP-113). Declared last, so destroyed first: its moves hold reservations on
  // dirs_ and partitions of partitions_.
  std::unique_ptr<ReplicaMover> mover_;
};

}  // namespace lds
