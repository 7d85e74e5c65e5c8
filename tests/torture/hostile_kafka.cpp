// hostile_kafka.cpp: malformed batches, raw Produce and Fetch requests, and unread Fetches.
#include "hostile_kafka.h"

#include <chrono>
#include <climits>
#include <utility>

#include "batch_bytes.h"
#include "frame_client.h"
#include "kafka/protocol/fetch.h"
#include "kafka/protocol/headers.h"
#include "kafka/protocol/produce.h"
#include "model/record_batch.h"
#include "model/wire.h"

namespace lds::torture {

namespace {

constexpr int16_t kInvalidRecord = 87;
constexpr int16_t kUnsupportedCompressionType = 76;
constexpr int64_t kTimestamp = 1700000000000;

bool send_request(test::FrameClient& c, int16_t key, int16_t version, int32_t correlation_id,
                  const std::string& body) {
  kafka::Writer w;
  kafka::write_request_header(w, {key, version, correlation_id, std::string("lds-torture")}, 1);
  w.raw(body);
  return c.send_all(test::FrameClient::frame(w.bytes()));
}

std::string fetch_body(const std::string& topic, int32_t partition, int32_t max_bytes,
                       int64_t offset = 0) {
  kafka::FetchRequest f;
  f.max_wait_ms = 0;
  f.min_bytes = 0;
  f.max_bytes = max_bytes;
  f.topics.push_back(
      {topic,
       {{.partition = partition, .fetch_offset = offset, .partition_max_bytes = max_bytes}}});
  kafka::Writer body;
  kafka::write_fetch_request(body, f, 4);
  return body.bytes();
}

// The error code and records of the one partition of a Fetch v4 reply to `correlation_id`.
std::string read_fetch_reply(const std::optional<std::string>& reply, int32_t correlation_id,
                             std::string* records) {
  if (!reply) return "no whole reply to Fetch " + std::to_string(correlation_id);
  try {
    kafka::Reader in(*reply);
    const int32_t id = kafka::read_response_header(in, 0);
    if (id != correlation_id) {
      return "the reply to Fetch " + std::to_string(correlation_id) + " carries correlation id " +
             std::to_string(id);
    }
    const kafka::FetchResponse r = kafka::read_fetch_response(in, 4);
    if (r.topics.size() != 1 || r.topics[0].partitions.size() != 1) {
      return "Fetch " + std::to_string(correlation_id) + " was answered with no partition";
    }
    const auto& p = r.topics[0].partitions[0];
    if (p.error_code != 0) {
      return "Fetch " + std::to_string(correlation_id) + " was answered with error code " +
             std::to_string(p.error_code);
    }
    *records = p.records.value_or("");
    return "";
  } catch (const std::exception& e) {
    return "the reply to Fetch " + std::to_string(correlation_id) + " does not parse: " + e.what();
  }
}

}  // namespace

MalformedBatch malformed_batch(uint64_t n) {
  const std::string plain = kafka::build_batch(0, kTimestamp, test::numbered_records(3));
  switch (n % kMalformedKinds) {
    case 0:
      return {"records count != lastOffsetDelta + 1",
              test::with_field<int32_t>(plain, test::kLastOffsetDeltaAt, 1), kInvalidRecord};
    case 1:
      return {
          "lastOffsetDelta 2^31 - 1",
          test::with_field<int32_t>(kafka::build_batch(0, kTimestamp, test::numbered_records(1)),
                                    test::kLastOffsetDeltaAt, INT32_MAX),
          kInvalidRecord};
    case 2:
      return {"a control batch", test::with_field<int16_t>(plain, test::kAttributesAt, 0x20),
              kInvalidRecord};
    case 3:
      return {"codec 7", test::with_records_area(plain, test::records_area(plain), 7),
              kUnsupportedCompressionType};
    case 4:
      return {"the gzip flag on uncompressed records",
              test::with_records_area(plain, test::records_area(plain), 1), kInvalidRecord};
    case 5: {
      std::string area = test::records_area(plain);
      area[4] = 100;  // the first record's key length, zigzag 50: past the record
      return {"a malformed record under a valid CRC", test::with_records_area(plain, area, 0),
              kInvalidRecord};
    }
    default: {
      std::string batch = test::with_field<int64_t>(plain, test::kProducerIdAt, 5);
      return {"a producer id with baseSequence -1",
              test::with_field<int32_t>(batch, test::kBaseSequenceAt, -1), kInvalidRecord};
    }
  }
}

int listener_port(const std::string& listener) {
  const size_t colon = listener.rfind(':');
  if (listener.rfind("PLAINTEXT://", 0) != 0 || colon == std::string::npos) return 0;
  try {
    const int port = std::stoi(listener.substr(colon + 1));
    return port > 0 && port < 65536 ? port : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

std::optional<int16_t> produce_batch(int port, const std::string& topic, int32_t partition,
                                     const std::string& batch, int timeout_seconds,
                                     std::string* problem) {
  test::FrameClient c(port);
  kafka::ProduceRequest request;
  request.topics.push_back({topic, {{partition, batch}}});
  kafka::Writer body;
  kafka::write_produce_request(body, request, 8);
  if (!c.connected() || !send_request(c, 0, 8, 1, body.bytes())) {
    *problem = "cannot send a Produce to 127.0.0.1:" + std::to_string(port);
    return std::nullopt;
  }
  const std::optional<std::string> reply = c.read_frame(std::chrono::seconds(timeout_seconds));
  if (!reply) {
    *problem = "a Produce of a malformed batch was not answered within " +
               std::to_string(timeout_seconds) + " s";
    return std::nullopt;
  }
  try {
    kafka::Reader in(*reply);
    kafka::read_response_header(in, 0);
    const kafka::ProduceResponse r = kafka::read_produce_response(in, 8);
    if (r.topics.size() == 1 && r.topics[0].partitions.size() == 1) {
      return r.topics[0].partitions[0].error_code;
    }
    *problem = "a Produce of a malformed batch was answered with no partition";
  } catch (const std::exception& e) {
    *problem = std::string("the answer to a Produce does not parse: ") + e.what();
  }
  return std::nullopt;
}

std::string fetch_once(int port, const std::string& topic, int32_t partition, int timeout_seconds) {
  test::FrameClient c(port);
  if (!c.connected() || !send_request(c, 1, 4, 1, fetch_body(topic, partition, 1 << 20))) {
    return "cannot send a Fetch to 127.0.0.1:" + std::to_string(port);
  }
  std::string records;
  return read_fetch_reply(c.read_frame(std::chrono::seconds(timeout_seconds)), 1, &records);
}

std::string fetch_at(int port, const std::string& topic, int32_t partition, int64_t offset,
                     int32_t max_bytes, int timeout_seconds, std::string* records) {
  test::FrameClient c(port);
  if (!c.connected() ||
      !send_request(c, 1, 4, 1, fetch_body(topic, partition, max_bytes, offset))) {
    return "cannot send a Fetch to 127.0.0.1:" + std::to_string(port);
  }
  return read_fetch_reply(c.read_frame(std::chrono::seconds(timeout_seconds)), 1, records);
}

UnreadFetches::UnreadFetches(int port, std::string topic, int32_t partition, int count,
                             int32_t max_bytes)
    : connection_(std::make_unique<test::FrameClient>(port)),
      topic_(std::move(topic)),
      partition_(partition),
      count_(count) {
  if (!connection_->connected()) {
    send_problem_ = "cannot connect to 127.0.0.1:" + std::to_string(port);
    return;
  }
  const std::string body = fetch_body(topic_, partition_, max_bytes);
  for (int i = 0; i < count_; ++i) {
    // A request is about 100 bytes: all of them fit the socket's buffers unread.
    if (!send_request(*connection_, 1, 4, i + 1, body)) {
      send_problem_ = "the broker stopped taking pipelined Fetches after " + std::to_string(i);
      return;
    }
  }
}

UnreadFetches::~UnreadFetches() = default;

std::string UnreadFetches::read_all(int timeout_seconds, uint64_t* bytes) {
  std::string first;
  *bytes = 0;
  for (int i = 0; i < count_; ++i) {
    std::string records;
    if (std::string p = read_fetch_reply(
            connection_->read_frame(std::chrono::seconds(timeout_seconds)), i + 1, &records);
        !p.empty()) {
      return p;
    }
    if (i == 0) first = records;
    if (records != first) {
      return "Fetch " + std::to_string(i + 1) + " of " + topic_ + "-" + std::to_string(partition_) +
             " from offset 0 got other records than Fetch 1";
    }
    *bytes += records.size();
  }
  return "";
}

}  // namespace lds::torture
