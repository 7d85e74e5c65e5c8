// producer_states.h: Kafka's checks of an idempotent producer's batches (KIP-98), per partition and
// producer id: a batch whose sequence repeats one of the producer's last five batches is answered
// with that batch's offset instead of being appended again; one out of sequence, or from an older
// epoch, is refused. A producer id the partition has not seen yet may start at any sequence, as
// on Kafka since KIP-360.
//
// The states live in memory only: after a restart every producer starts afresh, so a retry that
// spans the restart may append its batch twice (Kafka rebuilds them from its logs' producer
// snapshots). They are bounded: past kMaxEntries, the entries idle the longest are dropped first.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "storage/log_manager.h"
#include "util/mutex.h"

namespace lds::kafka {

// A batch refused by the sequence checks: Kafka's error code and sentence.
class ProducerStateError : public std::runtime_error {
 public:
  ProducerStateError(int16_t code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  int16_t code() const { return code_; }

 private:
  int16_t code_;
};

// What a batch's header says of its producer.
struct ProducerBatch {
  int64_t producer_id = -1;  // -1: not an idempotent producer's batch, never checked
  int16_t producer_epoch = -1;
  int32_t base_sequence = -1;
  int32_t last_offset_delta = 0;
};

class ProducerStates {
 public:
  static constexpr size_t kMaxEntries = 1 << 16;
  static constexpr size_t kBatchesKept = 5;  // Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN

  // Appends `batch` to `tp` with `append` (which returns the batch's base offset) unless the
  // producer's state says otherwise: returns the base offset of the batch appended now, or of the
  // earlier copy of a duplicate. Throws ProducerStateError for a batch out of sequence or from a
  // fenced epoch, and lets `append`'s own exceptions through (the state then stays as it was).
  // Calls for one partition and producer are serialised; `append` runs under that lock.
  int64_t append(const TopicPartition& tp, const ProducerBatch& batch,
                 const std::function<int64_t()>& append);

  size_t size() const;

 private:
  struct Key {
    std::string topic;
    int32_t partition = 0;
    int64_t producer_id = 0;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  struct Batch {
    int32_t first_sequence = 0;
    int32_t last_sequence = 0;
    int64_t base_offset = 0;
  };
  struct Entry {
    int16_t epoch = -1;
    std::deque<Batch> batches;  // the last kBatchesKept, oldest first
    std::chrono::steady_clock::time_point last_used;
  };
  struct Stripe {
    mutable Mutex mu;
    std::unordered_map<Key, Entry, KeyHash> entries GUARDED_BY(mu);
  };
  static constexpr size_t kStripes = 64;

  // Drops the idlest entries of `stripe` until it holds at most its share of kMaxEntries.
  static void trim(Stripe& stripe) REQUIRES(stripe.mu);

  std::array<Stripe, kStripes> stripes_;
};

}  // namespace lds::kafka
