// followed_moves.h: the moves the cluster balancer follows on one broker, those it started and
// those it found in flight, and what each read of the broker says became of them.
//
// A move ends when its future replica is gone. Kafka's DescribeLogDirs is no snapshot: it lists
// the current replicas, then the future ones, while the broker may swap a caught-up future in
// between. One answer can then show neither the future replica nor the moved one, only the replica
// still in its old dir. So a move whose future replica is gone with the replica still where it was
// is read once more before it counts as ended short; until then it is still followed.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "cluster/cluster_view.h"
#include "model/topic_partition.h"

namespace lds::cluster {

class FollowedMoves {
 public:
  struct Move {
    std::string from_path, to_path;
    int64_t since_ms = 0;       // when it started, or was first seen in flight
    uint64_t copied_since = 0;  // what its future replica held then
    bool unconfirmed = false;   // the last read showed it back at its source, once
  };
  enum class Outcome {
    kMoved,  // the replica is in the move's destination
    kShort,  // twice read back in its source dir with no future replica: cancelled or failed
    kGone,   // the partition is no longer on the broker (deleted or reassigned)
  };
  struct Ended {
    TopicPartition tp;
    Move move;
    Outcome outcome = Outcome::kMoved;
    uint64_t size = 0;    // the replica's size at the end (kMoved, kShort)
    uint64_t copied = 0;  // what was copied while it was followed (kMoved)
    std::string at;       // the dir the replica is in (kShort)
  };
  struct Adopted {
    TopicPartition tp;
    Move move;
    FutureReplica future;
  };
  struct Seen {
    std::vector<Ended> ended;
    std::vector<Adopted> adopted;  // in flight and not followed before: followed from now on
  };

  // What the read `v` says of the moves followed, and of the futures not followed yet.
  Seen note(const BrokerView& v, int64_t now_ms);
  // Follows a move this balancer just started.
  void start(const TopicPartition& tp, Move m);

  bool follows(const TopicPartition& tp) const { return moves_.count(tp) > 0; }
  // Moves followed that the last read did not show in flight (waiting for their second read).
  size_t unconfirmed() const;
  size_t size() const { return moves_.size(); }

 private:
  std::unordered_map<TopicPartition, Move, TopicPartitionHash> moves_;
};

}  // namespace lds::cluster
