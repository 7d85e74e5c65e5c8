// kafka_next_log_dirs.cpp: the port of Kafka's nextLogDirs (see the header for what is kept).
#include "kafka_next_log_dirs.h"

#include <algorithm>
#include <utility>

namespace lds::bench {

KafkaNextLogDirsPort::KafkaNextLogDirsPort(std::vector<std::string> live_dirs)
    : live_dirs_(std::move(live_dirs)) {}

void KafkaNextLogDirsPort::add_log(const std::string& topic, int32_t partition, size_t dir_index,
                                   bool future) {
  (future ? future_logs_ : current_logs_)[{topic, partition}] = Log{&live_dirs_[dir_index]};
}

void KafkaNextLogDirsPort::remove_log(const std::string& topic, int32_t partition, bool future) {
  (future ? future_logs_ : current_logs_).erase({topic, partition});
}

std::vector<const std::string*> KafkaNextLogDirsPort::next_log_dirs() const {
  if (live_dirs_.size() == 1) return {&live_dirs_[0]};
  // allLogs.groupBy(_.parentDir).map { case (parent, logs) => parent -> logs.size }
  std::unordered_map<const std::string*, size_t> log_counts;
  for (const auto* logs : {&current_logs_, &future_logs_}) {
    for (const auto& [tp, log] : *logs) ++log_counts[log.parent_dir];
  }
  // zeros ++ logCounts: every live directory, with its count or 0.
  std::vector<std::pair<const std::string*, size_t>> dir_counts;
  dir_counts.reserve(live_dirs_.size());
  for (const std::string& dir : live_dirs_) {
    auto it = log_counts.find(&dir);
    dir_counts.emplace_back(&dir, it == log_counts.end() ? 0 : it->second);
  }
  // dirCounts.sortBy(_._2): a stable sort by count.
  std::stable_sort(dir_counts.begin(), dir_counts.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  std::vector<const std::string*> out;
  out.reserve(dir_counts.size());
  for (const auto& [dir, count] : dir_counts) out.push_back(dir);
  return out;
}

}  // namespace lds::bench
