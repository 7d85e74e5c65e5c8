// hostile_kafka.h: a client of the broker's Kafka listener that breaks the rules a real client
// keeps: record batches Kafka's LogValidator refuses, and Fetches pipelined on one connection and
// never read.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace lds::test {
class FrameClient;
}

namespace lds::torture {

// A batch that breaks one of Kafka's rules, and the error code Kafka answers it with.
struct MalformedBatch {
  std::string what;
  std::string batch;
  int16_t code = 0;
};

// The ways a batch is broken: the records count against lastOffsetDelta, lastOffsetDelta 2^31-1,
// a control batch, codec 7, the gzip flag on uncompressed records, a malformed record under a
// valid CRC, a producer id with baseSequence -1.
inline constexpr uint64_t kMalformedKinds = 7;
// The way number `n % kMalformedKinds`.
MalformedBatch malformed_batch(uint64_t n);

// The port of "PLAINTEXT://host:port"; 0 when `listener` is not one.
int listener_port(const std::string& listener);

// Produce v8 of `batch` to (topic, partition) through 127.0.0.1:`port`: the partition's error
// code, or nullopt with `problem` set when no whole answer came within `timeout_seconds`.
std::optional<int16_t> produce_batch(int port, const std::string& topic, int32_t partition,
                                     const std::string& batch, int timeout_seconds,
                                     std::string* problem);

// Fetch v4 of (topic, partition) from offset 0 through 127.0.0.1:`port`, on a connection of its
// own: "" when it is answered within `timeout_seconds` with error code 0, else what went wrong.
std::string fetch_once(int port, const std::string& topic, int32_t partition, int timeout_seconds);

// Fetch v4 of (topic, partition) from `offset`, up to `max_bytes`, on a connection of its own: ""
// with `records` set when answered within `timeout_seconds` with error code 0, else what went
// wrong.
std::string fetch_at(int port, const std::string& topic, int32_t partition, int64_t offset,
                     int32_t max_bytes, int timeout_seconds, std::string* records);

// One connection that sends `count` Fetches of (topic, partition) from offset 0, each for up to
// `max_bytes`, and reads none of the replies until told to.
class UnreadFetches {
 public:
  UnreadFetches(int port, std::string topic, int32_t partition, int count, int32_t max_bytes);
  ~UnreadFetches();
  UnreadFetches(const UnreadFetches&) = delete;
  UnreadFetches& operator=(const UnreadFetches&) = delete;

  // "" once every request is sent, or why not.
  const std::string& send_problem() const { return send_problem_; }
  // Reads every reply: "" when each came within `timeout_seconds`, whole, in order, with error
  // code 0 and the same records; else what went wrong. `bytes` gets the records' bytes per reply.
  std::string read_all(int timeout_seconds, uint64_t* bytes);

 private:
  std::unique_ptr<test::FrameClient> connection_;
  std::string topic_;
  int32_t partition_ = 0;
  int count_ = 0;
  std::string send_problem_;
};

}  // namespace lds::torture
