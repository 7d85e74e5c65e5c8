// producer_states_test.cpp: the sequence checks of idempotent producers' batches, with an append
// that counts: duplicates answered from the last five batches, batches out of sequence and from
// older epochs refused, a new epoch starting at 0, wrapping sequences, and the bound on entries.
#include "kafka/server/producer_states.h"

#include <gtest/gtest.h>

#include <string>

#include "kafka/protocol/api_keys.h"

namespace lds::kafka {
namespace {

class ProducerStatesTest : public ::testing::Test {
 protected:
  // Appends a batch of `count` records from sequence `first`; returns its base offset.
  int64_t send(int32_t first, int32_t count, int16_t epoch = 0, int64_t producer = 7,
               const TopicPartition& tp = {"t", 0}) {
    return states_.append(tp, {producer, epoch, first, count - 1}, [&] {
      const int64_t base = next_offset_;
      next_offset_ += count;
      ++appends_;
      return base;
    });
  }
  int16_t refusal(int32_t first, int32_t count, int16_t epoch = 0) {
    try {
      send(first, count, epoch);
    } catch (const ProducerStateError& e) {
      return e.code();
    }
    return 0;
  }

  ProducerStates states_;
  int64_t next_offset_ = 0;
  int appends_ = 0;
};

TEST_F(ProducerStatesTest, ARetriedBatchIsAnsweredWithItsFirstOffsetAndNotAppendedAgain) {
  EXPECT_EQ(send(0, 3), 0);
  EXPECT_EQ(send(3, 2), 3);
  EXPECT_EQ(send(0, 3), 0);
  EXPECT_EQ(send(3, 2), 3);
  EXPECT_EQ(appends_, 2);
  EXPECT_EQ(send(5, 1), 5);
  EXPECT_EQ(appends_, 3);
}

TEST_F(ProducerStatesTest, OnlyTheLastFiveBatchesAreRemembered) {
  for (int32_t seq = 0; seq < 6; ++seq) send(seq, 1);
  EXPECT_EQ(send(1, 1), 1);  // the 2nd of 6, still among the last five
  EXPECT_EQ(appends_, 6);
  EXPECT_EQ(refusal(0, 1), error::kOutOfOrderSequenceNumber);  // forgotten: out of sequence
}

TEST_F(ProducerStatesTest, AGapOrAnOlderEpochIsRefusedAndChangesNothing) {
  send(0, 2);
  EXPECT_EQ(refusal(3, 1), error::kOutOfOrderSequenceNumber);
  EXPECT_EQ(appends_, 1);
  EXPECT_EQ(send(2, 1), 2);  // the state is as it was
  send(0, 1, /*epoch=*/1);   // a new epoch starts at 0
  EXPECT_EQ(refusal(1, 1, /*epoch=*/0), error::kInvalidProducerEpoch);
  EXPECT_EQ(refusal(5, 1, /*epoch=*/2), error::kOutOfOrderSequenceNumber);
  try {
    send(9, 1, 1);
    ADD_FAILURE() << "no refusal";
  } catch (const ProducerStateError& e) {
    EXPECT_EQ(std::string(e.what()),
              "Out of order sequence number for producer 7 in partition t-0: 9 (incoming seq. "
              "number), 0 (current end sequence number)");
  }
}

TEST_F(ProducerStatesTest, AnUnseenProducerMayStartAnywhereAndSequencesWrap) {
  EXPECT_EQ(send(2147483646, 2), 0);  // sequences 2147483646 and 2147483647
  EXPECT_EQ(send(0, 1), 2);           // then 0
  EXPECT_EQ(send(2147483646, 2), 0);  // still a duplicate
  EXPECT_EQ(appends_, 2);
}

TEST_F(ProducerStatesTest, ANegativeDeltaAtTheTopOfTheSequencesDoesNotOverflow) {
  // A crafted batch: lastOffsetDelta -1 at sequence INT32_MAX (the append refuses it later).
  EXPECT_EQ(states_.append({"t", 0}, {7, 0, 2147483647, -1}, [] { return int64_t{0}; }), 0);
}

TEST_F(ProducerStatesTest, PartitionsAndProducersAreApartAndPlainBatchesAreNeverChecked) {
  send(0, 1);
  EXPECT_EQ(send(5, 1, 0, 7, {"t", 1}), 1);  // another partition: unseen, accepted
  EXPECT_EQ(send(5, 1, 0, 8), 2);            // another producer
  EXPECT_EQ(send(0, 1, -1, -1), 3);          // no producer id: appended as it is
  EXPECT_EQ(send(0, 1, -1, -1), 4);
  EXPECT_EQ(states_.size(), 3u);
}

TEST_F(ProducerStatesTest, AFailedAppendLeavesNoState) {
  EXPECT_THROW(states_.append({"t", 0}, {7, 0, 0, 0}, []() -> int64_t { throw 1; }), int);
  EXPECT_EQ(states_.size(), 0u);
  EXPECT_EQ(send(0, 1), 0);
}

TEST_F(ProducerStatesTest, EntriesAreBoundedTheIdlestDroppedFirst) {
  const size_t n = ProducerStates::kMaxEntries * 2;
  for (size_t i = 0; i < n; ++i) send(0, 1, 0, static_cast<int64_t>(i) + 100);
  EXPECT_LE(states_.size(), ProducerStates::kMaxEntries);
  EXPECT_GT(states_.size(), ProducerStates::kMaxEntries / 2);
  // The newest producer is still known: its retry is a duplicate.
  const int before = appends_;
  send(0, 1, 0, static_cast<int64_t>(n) + 99);
  EXPECT_EQ(appends_, before);
}

}  // namespace
}  // namespace lds::kafka
