// hosted_partition.h: one replica a LogManager hosts: where it lives, its log, what it reserves
// and how fast it grows.
#pragma once

#include <cstdint>
#include <string>

#include "model/topic_partition.h"
#include "storage/partition_log.h"
#include "storage/reservation.h"
#include "util/rate_meter.h"
#include "util/short_string.h"

namespace lds {

// Kept small: a broker may host a million. Its I/O lock is one of the LogManager's striped locks
// (LogManager::io_of), and a move in progress lives in its ReplicaMover.
struct HostedPartition {
  TopicPartition tp;
  uint32_t dir = 0;         // changes only when a move promotes, under io and the state lock
  bool deleted = false;     // guarded by io
  uint64_t size = 0;        // guarded by the state lock; the log's bytes, for readers without io
  PartitionLog log;         // its segments and offsets; guarded by io
  Reservation reservation;  // on its dir: expected bytes not written yet; guarded by the state lock
  RateMeter rate;           // its appends; guarded by the state lock
  // Its lds.partition's replica.id, which a move copies with it: what a pending deletion of it
  // names. "" for a partition created before the file held one. Set before it is hosted; 22
  // characters as this broker writes them, held inline.
  ShortString replica_id;
};

}  // namespace lds
