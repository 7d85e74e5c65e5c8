// kafka_next_log_dirs.h: a C++ port of Kafka's LogManager.nextLogDirs, the placement benchmark's
// baseline.
//
// Kafka (core/src/main/scala/kafka/log/LogManager.scala) keeps no per-directory counters. Each call
// of nextLogDirs walks every current and future log (allLogs), groups them by parent directory and
// counts each group, adds a count of 0 for live directories that hold nothing, and sorts the
// directories by count, fewest first (a stable sort). With a single live directory it returns that
// directory without counting. The cost therefore grows with the number of hosted partitions.
//
// The port keeps that behaviour and is generous to Kafka where C++ would be slower for no reason of
// the algorithm: logs share one string per parent directory, so grouping hashes a pointer, as the
// JVM hashes a String once and caches the hash; and the groups are counted, not materialised.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace lds::bench {

class KafkaNextLogDirsPort {
 public:
  explicit KafkaNextLogDirsPort(std::vector<std::string> live_dirs);

  // A log (or, with future = true, a future log of a move in progress) of topic-partition in
  // live directory dir_index.
  void add_log(const std::string& topic, int32_t partition, size_t dir_index, bool future = false);
  void remove_log(const std::string& topic, int32_t partition, bool future = false);
  size_t log_count() const { return current_logs_.size() + future_logs_.size(); }

  // nextLogDirs(): the live directories, fewest logs first, ties in live-directory order.
  std::vector<const std::string*> next_log_dirs() const;
  // The live-directory index of an entry of next_log_dirs().
  size_t dir_index(const std::string* dir) const {
    return static_cast<size_t>(dir - live_dirs_.data());
  }

 private:
  struct TopicPartition {
    std::string topic;
    int32_t partition;
    bool operator==(const TopicPartition&) const = default;
  };
  struct TopicPartitionHash {
    size_t operator()(const TopicPartition& tp) const noexcept {
      return std::hash<std::string>()(tp.topic) * 31u + static_cast<size_t>(tp.partition);
    }
  };
  // The fields of kafka.log.UnifiedLog that nextLogDirs reads.
  struct Log {
    const std::string* parent_dir;
  };

  std::vector<std::string> live_dirs_;
  std::unordered_map<TopicPartition, Log, TopicPartitionHash> current_logs_;
  std::unordered_map<TopicPartition, Log, TopicPartitionHash> future_logs_;
};

}  // namespace lds::bench
