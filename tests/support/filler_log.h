// filler_log.h: checks that a partition directory holds exactly what the admin API's Produce
// wrote: a valid Kafka log (whole v2 batches, each CRC32C right, offsets from 0 without a gap,
// each segment named by its first offset) of filler records whose values are the payload pattern
// of their offsets, `size` bytes in all; and, at offsets a Kafka client was told it wrote, that
// client's keys and values.
#pragma once

#include <algorithm>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "file_bytes.h"
#include "io/log_layout.h"
#include "model/record_batch.h"
#include "model/wire.h"

namespace lds::test {

// A record a Kafka client produced, at the offset its delivery report gave.
struct ClientRecord {
  std::string key;
  std::string value;
};

// "" when `partition_dir` holds exactly `size` bytes of Produce's filler records of (topic,
// partition), except that the record at each offset of `client` is that client record; otherwise
// what is wrong, naming the segment and position.
inline std::string filler_log_problem(const std::filesystem::path& partition_dir,
                                      const std::string& topic, int32_t partition, uint64_t size,
                                      const std::map<int64_t, ClientRecord>& client = {}) {
  namespace fs = std::filesystem;
  std::vector<std::pair<uint64_t, fs::path>> segments;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(partition_dir, ec)) {
    uint64_t base = 0;
    if (layout::parse_segment_file(e.path().filename().string(), &base)) {
      segments.emplace_back(base, e.path());
    }
  }
  if (ec) return "cannot list " + partition_dir.string() + ": " + ec.message();
  std::sort(segments.begin(), segments.end());
  int64_t next = 0;
  uint64_t total = 0;
  std::string want;
  for (const auto& [base, path] : segments) {
    const std::string bytes = file_bytes(path);
    total += bytes.size();
    if (!bytes.empty() && static_cast<int64_t>(base) != next) {
      return path.string() + " is named for offset " + std::to_string(base) +
             " but the log continues at " + std::to_string(next);
    }
    size_t at = 0;
    try {
      while (at < bytes.size()) {
        const std::string_view batch = std::string_view(bytes).substr(at);
        const kafka::RecordBatchHeader h = kafka::read_batch_header(batch);
        const std::string_view whole = batch.substr(0, h.size_in_bytes());
        if (!kafka::batch_crc_matches(whole))
          return path.string() + ": bad CRC at byte " + std::to_string(at);
        if (h.base_offset != next) {
          return path.string() + ": the batch at byte " + std::to_string(at) +
                 " starts at offset " + std::to_string(h.base_offset) + ", expected " +
                 std::to_string(next);
        }
        for (const kafka::Record& r : kafka::read_records(whole)) {
          const int64_t offset = h.base_offset + r.offset_delta;
          const std::string value = r.value.value_or("");
          if (auto c = client.find(offset); c != client.end()) {
            if (r.key.value_or("") != c->second.key || value != c->second.value) {
              return path.string() + ": the record at offset " + std::to_string(offset) +
                     " is not the one the client was told it wrote there (key " + c->second.key +
                     ")";
            }
            continue;
          }
          want.assign(value.size(), '\0');
          layout::fill_payload(topic, partition, static_cast<uint64_t>(offset),
                               std::span<char>(want.data(), want.size()));
          if (value != want) {
            return path.string() + ": the record at offset " + std::to_string(offset) +
                   " is not the payload pattern";
          }
        }
        next = h.base_offset + h.last_offset_delta + 1;
        at += h.size_in_bytes();
      }
    } catch (const std::exception& e) {
      return path.string() + ": not a whole record batch at byte " + std::to_string(at) + ": " +
             e.what();
    }
  }
  if (!client.empty() && client.rbegin()->first >= next) {
    return partition_dir.string() + " ends at offset " + std::to_string(next) +
           ", but a client was told it wrote offset " + std::to_string(client.rbegin()->first);
  }
  if (total != size) {
    return partition_dir.string() + " holds " + std::to_string(total) + " bytes, expected " +
           std::to_string(size);
  }
  return "";
}

}  // namespace lds::test
