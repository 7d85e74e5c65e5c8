// producer_states.cpp: the sequence checks of idempotent producers' batches, after Kafka's
// ProducerAppendInfo and ProducerStateEntry.
#include "kafka/server/producer_states.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "kafka/protocol/api_keys.h"

namespace lds::kafka {
namespace {

constexpr int32_t kMaxSequence = std::numeric_limits<int32_t>::max();

// A batch's last sequence: sequences wrap from INT32_MAX to 0.
// A batch from a client that breaks the rules (a negative delta) still gets a number, computed
// without overflow; the append's own checks then refuse the batch.
int32_t last_sequence(int32_t first, int32_t delta) {
  const int64_t last = int64_t{first} + delta;
  if (last > kMaxSequence) return static_cast<int32_t>(last - kMaxSequence - 1);
  return static_cast<int32_t>(last);
}

bool in_sequence(int32_t last, int32_t next) {
  return next == (last == kMaxSequence ? 0 : last + 1);
}

}  // namespace

size_t ProducerStates::KeyHash::operator()(const Key& k) const {
  size_t h = std::hash<std::string>()(k.topic);
  h ^= std::hash<int64_t>()(k.producer_id) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= std::hash<int32_t>()(k.partition) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

int64_t ProducerStates::append(const TopicPartition& tp, const ProducerBatch& batch,
                               const std::function<int64_t()>& append) {
  if (batch.producer_id < 0) return append();
  Key key{tp.topic, tp.partition, batch.producer_id};
  Stripe& stripe = stripes_[KeyHash()(key) % kStripes];
  MutexLock lock(stripe.mu);
  const int32_t first = batch.base_sequence;
  const int32_t last = last_sequence(first, batch.last_offset_delta);
  auto it = stripe.entries.find(key);
  if (it != stripe.entries.end()) {
    Entry& e = it->second;
    if (batch.producer_epoch < e.epoch) {
      throw ProducerStateError(
          error::kInvalidProducerEpoch,
          "Epoch of producer " + std::to_string(batch.producer_id) + " in partition " + tp.str() +
              " is " + std::to_string(batch.producer_epoch) +
              ", which is smaller than the last seen epoch " + std::to_string(e.epoch));
    }
    if (batch.producer_epoch == e.epoch) {
      for (const Batch& b : e.batches) {
        if (b.first_sequence == first && b.last_sequence == last) {
          e.last_used = std::chrono::steady_clock::now();
          return b.base_offset;  // a retry of a batch already appended
        }
      }
      if (!e.batches.empty() && !in_sequence(e.batches.back().last_sequence, first)) {
        throw ProducerStateError(
            error::kOutOfOrderSequenceNumber,
            "Out of order sequence number for producer " + std::to_string(batch.producer_id) +
                " in partition " + tp.str() + ": " + std::to_string(first) +
                " (incoming seq. number), " + std::to_string(e.batches.back().last_sequence) +
                " (current end sequence number)");
      }
    } else if (first != 0) {
      throw ProducerStateError(
          error::kOutOfOrderSequenceNumber,
          "Invalid sequence number for new epoch of producer " + std::to_string(batch.producer_id) +
              " in partition " + tp.str() + ": " + std::to_string(batch.producer_epoch) +
              " (request epoch), " + std::to_string(first) + " (seq. number), " +
              std::to_string(e.epoch) + " (current producer epoch)");
    }
  }
  const int64_t base_offset = append();
  const bool added = it == stripe.entries.end();
  if (added) it = stripe.entries.emplace(std::move(key), Entry{}).first;
  Entry& e = it->second;
  if (batch.producer_epoch != e.epoch) e.batches.clear();
  e.epoch = batch.producer_epoch;
  e.batches.push_back({first, last, base_offset});
  while (e.batches.size() > kBatchesKept) e.batches.pop_front();
  e.last_used = std::chrono::steady_clock::now();
  if (added) trim(stripe);
  return base_offset;
}

void ProducerStates::trim(Stripe& stripe) {
  constexpr size_t kShare = kMaxEntries / kStripes;
  if (stripe.entries.size() <= kShare) return;
  // Drop the idlest eighth of the stripe at once, so that trimming stays rare.
  std::vector<std::chrono::steady_clock::time_point> used;
  used.reserve(stripe.entries.size());
  for (const auto& [key, e] : stripe.entries) used.push_back(e.last_used);
  const size_t drop = stripe.entries.size() - kShare + kShare / 8;
  std::nth_element(used.begin(), used.begin() + static_cast<std::ptrdiff_t>(drop - 1), used.end());
  const auto cutoff = used[drop - 1];
  size_t dropped = 0;
  for (auto it = stripe.entries.begin(); it != stripe.entries.end() && dropped < drop;) {
    if (it->second.last_used <= cutoff) {
      it = stripe.entries.erase(it);
      ++dropped;
    } else {
      ++it;
    }
  }
}

size_t ProducerStates::size() const {
  size_t n = 0;
  for (const Stripe& s : stripes_) {
    MutexLock lock(s.mu);
    n += s.entries.size();
  }
  return n;
}

}  // namespace lds::kafka
