// topic_partition.cpp: a partition's name as its directory is named, and its hash.
#include "core/topic_partition.h"

#include <functional>

#include "core/log_layout.h"

namespace lds {

std::string TopicPartition::str() const { return layout::partition_dir(topic, partition); }

size_t TopicPartitionHash::operator()(const TopicPartition& tp) const noexcept {
  return std::hash<std::string>()(tp.topic) * 31u + static_cast<size_t>(tp.partition);
}

}  // namespace lds
