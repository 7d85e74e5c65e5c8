// topic_partition.cpp: a partition's name as its directory is named, and its hash.
#include "model/topic_partition.h"

#include <functional>
#include <string>

namespace lds {

std::string TopicPartition::str() const { return topic + "-" + std::to_string(partition); }

size_t TopicPartitionHash::operator()(const TopicPartition& tp) const noexcept {
  return std::hash<std::string>()(tp.topic) * 31u + static_cast<size_t>(tp.partition);
}

}  // namespace lds
