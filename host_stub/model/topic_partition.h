// topic_partition.h: the name of one partition of a topic, the vocabulary every layer shares.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace lds {

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  bool operator==(const TopicPartition&) const = default;
  std::string str() const;  // "topic-0", as kafka-log-dirs.sh names partitions
};

struct TopicPartitionHash {
  size_t operator()(const TopicPartition& tp) const noexcept;
};

}  // namespace lds
