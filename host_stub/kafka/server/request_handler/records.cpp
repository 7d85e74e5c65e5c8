// request_handler/records.cpp: Produce, Fetch and ListOffsets against the LogManager's record-batch
// log, with Kafka's per-partition errors and its rules for acks, byte limits and waiting fetches.
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "broker/broker.h"
#include "broker/kafka_errors.h"
#include "kafka/protocol/api_keys.h"
#include "kafka/protocol/fetch.h"
#include "kafka/protocol/headers.h"
#include "kafka/protocol/init_producer_id.h"
#include "kafka/protocol/list_offsets.h"
#include "kafka/protocol/produce.h"
#include "kafka/protocol/record_reader.h"
#include "kafka/server/producer_states.h"
#include "kafka/server/record_validator.h"
#include "kafka/server/request_handler.h"
#include "model/record_batch.h"

namespace lds::kafka {
namespace {

// The producer fields of the one batch a Produce carries per partition; none (never checked) when
// its header cannot be read, which the append then refuses.
ProducerBatch producer_of(std::string_view records) {
  try {
    const RecordBatchHeader h = read_batch_header(records);
    return {h.producer_id, h.producer_epoch, h.base_sequence, h.last_offset_delta};
  } catch (const ParseError&) {
    return {};
  }
}

// How far a Fetch got through its partitions: the bytes it may still read, and what it read.
struct FetchProgress {
  int64_t left = 0;
  // Records left behind for want of max_bytes: the reply is as full as it may be. Kafka's
  // DelayedFetch, which counts the bytes available rather than those read, answers it now.
  bool full = false;
  bool whole_first_batch = true;
  int64_t bytes = 0;
  bool failed = false;
};

// Answers one partition of a Produce with `e`, the refusal of its records by Kafka's checks or by
// storage (in Kafka's words). Returns the error's name, for an acks=0 request's log line.
std::string refuse_records(const KafkaError& e, ProduceResponse::Partition& out) {
  out.error_code = error_code_of(e.code());
  out.base_offset = -1;
  out.error_message = e.what();
  if (const auto* refused = dynamic_cast<const RecordValidationError*>(&e)) {
    for (const RecordError& bad : refused->record_errors()) {
      out.record_errors.push_back({bad.batch_index, bad.message});
    }
  }
  return error_name(e.code());
}

// Reads one partition of a Fetch, within its partition_max_bytes and what `progress` has left, and
// counts what it read there.
FetchResponse::Partition read_fetch_partition(LogManager& logs, const FetchRequest& request,
                                              const std::string& topic,
                                              const FetchRequest::Partition& p, int16_t version,
                                              FetchProgress& progress) {
  FetchResponse::Partition out;
  out.partition_index = p.partition;
  out.records = std::string();
  const int64_t partition_max = std::max<int32_t>(p.partition_max_bytes, 0);
  const int64_t limit = std::min(partition_max, progress.left);
  try {
    LogManager::ReadResult got =
        logs.read({topic, p.partition}, p.fetch_offset, static_cast<uint64_t>(limit));
    if (!progress.whole_first_batch && static_cast<int64_t>(got.size()) > limit) {
      // Only the first batch may exceed the limits, and it did.
      got.bytes.clear();
      got.file = {};
      got.next_offset = p.fetch_offset;
    }
    out.high_watermark = got.offsets.log_end_offset;
    out.last_stable_offset = got.offsets.log_end_offset;  // no transactions here
    out.log_start_offset = got.offsets.log_start_offset;
    if (request.isolation_level == 1) out.aborted_transactions.emplace();
    const auto size = static_cast<int64_t>(got.size());
    if (progress.left < partition_max && got.next_offset < got.offsets.log_end_offset) {
      progress.full = true;
    }
    if (size > 0) progress.whole_first_batch = false;
    progress.bytes += size;
    progress.left = std::max<int64_t>(0, progress.left - size);
    out.records = std::move(got.bytes);
    out.records_file = std::move(got.file);
  } catch (const StorageError& e) {
    progress.failed = true;
    out.error_code = error_code_of(kafka_error_code(e.code()));
    // Kafka's clients before Fetch 6 do not know KAFKA_STORAGE_ERROR; they retry on this.
    if (e.code() == StorageErrc::kDirUnavailable && version <= 5) {
      out.error_code = error::kNotLeaderOrFollower;
    }
  }
  return out;
}

}  // namespace

Reply RequestHandler::produce(std::string_view body, int16_t version, int32_t correlation_id,
                              const std::string& client_id) const {
  Reader in(body);
  ProduceRequest request = read_produce_request(in, version);
  const bool valid_acks = request.acks == -1 || request.acks == 0 || request.acks == 1;
  ProduceResponse r;
  bool appended = false;
  std::string failures;  // "t-0: CORRUPT_MESSAGE, ..." for an acks=0 request's log line
  for (ProduceRequest::Topic& t : request.topics) {
    ProduceResponse::Topic result;
    result.name = t.name;
    for (ProduceRequest::Partition& p : t.partitions) {
      ProduceResponse::Partition out;
      out.index = p.index;
      const TopicPartition tp{t.name, p.index};
      std::string failure;
      // Kafka's order: the request's checks of the records (ProduceRequest.validateRecords), the
      // partition, the log's checks (framing, size, CRC) and, for a batch that passes them,
      // LogValidator's (kafka/server/record_validator.h). A refused batch reaches no log.
      if (!valid_acks) {
        out.error_code = error::kInvalidRequiredAcks;
        failure = "INVALID_REQUIRED_ACKS";
      } else {
        const std::string partition = tp.str();
        try {
          validate_produce_records(p.records ? std::string_view(*p.records) : std::string_view(),
                                   version, partition);
          out.base_offset = producers_->append(tp, producer_of(*p.records), [&] {
            return broker_.logs().append_batches(
                tp, std::move(*p.records),
                [&partition](std::string_view batch) { validate_client_batch(batch, partition); });
          });
          appended = true;
          try {
            out.log_start_offset = broker_.logs().log_offsets(tp).log_start_offset;
          } catch (const StorageError&) {
            // Deleted since: the append stands; the start offset is unknown.
          }
        } catch (const ProducerStateError& e) {
          out.error_code = e.code();
          failure = e.what();
          out.base_offset = -1;
          out.error_message = e.what();
        } catch (const KafkaError& e) {
          failure = refuse_records(e, out);
        } catch (const StorageError& e) {
          failure = refuse_records(kafka_error(e), out);
        }
      }
      if (!failure.empty()) failures += (failures.empty() ? "" : ", ") + tp.str() + ": " + failure;
      result.partitions.push_back(out);
    }
    r.topics.push_back(std::move(result));
  }
  if (appended && on_append_) on_append_();
  Reply reply;
  if (request.acks == 0) {
    // No response at all. A failure closes the connection instead, as Kafka does, so that the
    // producer notices and refreshes its metadata.
    if (!failures.empty()) {
      reply.close_reason = "an acks=0 Produce (correlation id " + std::to_string(correlation_id) +
                           ", client id " + client_id + ") failed (" + failures +
                           "), and only a closed connection can tell the producer";
    }
    return reply;
  }
  Writer out;
  write_response_header(out, correlation_id, response_header_version(ApiKey::kProduce, version));
  write_produce_response(out, r, version);
  reply.frame = out.take();
  return reply;
}

// Waiting fetches: a Fetch that finds fewer than min_bytes (and no error) answers with
// Reply::retry_at = its arrival + max_wait_ms instead of a frame. The listener's StreamServer then
// parks the request on its connection, frees the worker, and asks again at that time or as soon
// as a Produce appends (on_append_ -> KafkaListener::wake_waiting). So a consumer at the log end
// waits without spinning and without holding a handler thread: however many consumers wait, every
// other connection keeps being served, and the waiting connection's later requests stay behind
// the Fetch, in order, as Kafka mutes a connection whose request is in purgatory.
Reply RequestHandler::fetch(std::string_view body, int16_t version, int32_t correlation_id,
                            std::chrono::steady_clock::time_point received) const {
  Reader in(body);
  const FetchRequest request = read_fetch_request(in, version);
  FetchResponse r;
  auto encoded = [&] {
    Reply reply;
    Writer out;
    write_response_header(out, correlation_id, response_header_version(ApiKey::kFetch, version));
    write_fetch_response(out, r, version, &reply.splices);
    reply.frame = out.take();
    return reply;
  };
  // Epoch -1 asks for no session and 0 for a new one, which this broker declines by answering
  // session 0; any other epoch continues a session it never opened.
  if (request.session_epoch != -1 && request.session_epoch != 0) {
    r.error_code = error::kFetchSessionIdNotFound;
    return encoded();
  }
  // Kafka's limits (KafkaApis.handleFetchRequest, ReplicaManager.readFromLog): max_bytes at most
  // fetch.max.bytes, min_bytes at most that; each partition reads at most its
  // partition_max_bytes and what is left of max_bytes, except that until some partition has
  // returned data, the first batch comes whole however large (KIP-74).
  const int32_t max_bytes = std::min(std::max<int32_t>(request.max_bytes, 0), fetch_max_bytes_);
  const int32_t min_bytes = std::min(request.min_bytes, max_bytes);
  FetchProgress progress;
  progress.left = max_bytes;
  size_t partitions = 0;
  for (const FetchRequest::Topic& t : request.topics) {
    FetchResponse::Topic result;
    result.topic = t.topic;
    for (const FetchRequest::Partition& p : t.partitions) {
      ++partitions;
      result.partitions.push_back(
          read_fetch_partition(broker_.logs(), request, t.topic, p, version, progress));
    }
    r.topics.push_back(std::move(result));
  }
  const auto deadline = received + std::chrono::milliseconds(std::max(request.max_wait_ms, 0));
  if (request.max_wait_ms <= 0 || partitions == 0 || progress.bytes >= min_bytes || progress.full ||
      progress.failed || std::chrono::steady_clock::now() >= deadline) {
    return encoded();
  }
  Reply wait;
  wait.retry_at = deadline;
  return wait;
}

std::optional<TimestampAndOffset> RequestHandler::offset_at_time(const TopicPartition& tp,
                                                                 int64_t timestamp) const {
  const std::optional<std::string> batch = broker_.logs().batch_at_timestamp(tp, timestamp);
  if (!batch) return std::nullopt;
  try {
    return first_record_at_or_after(*batch, timestamp);
  } catch (const FramingFault& fault) {
    throw KafkaError(
        ErrorCode::kCorruptMessage,
        "A record batch of " + tp.str() + " does not frame as Kafka records: " + fault.why + ".");
  } catch (const DecompressError& e) {
    throw KafkaError(ErrorCode::kCorruptMessage,
                     "A record batch of " + tp.str() + " does not decompress: " + e.what() + ".");
  }
}

std::string RequestHandler::list_offsets(std::string_view body, int16_t version,
                                         int32_t correlation_id) const {
  Reader in(body);
  const ListOffsetsRequest request = read_list_offsets_request(in, version);
  // A partition named twice gets INVALID_REQUEST both times, as in Kafka.
  std::map<std::pair<std::string, int32_t>, int> mentions;
  for (const auto& t : request.topics) {
    for (const auto& p : t.partitions) ++mentions[{t.name, p.partition_index}];
  }
  ListOffsetsResponse r;
  std::map<std::string, size_t> topic_index;  // a topic listed twice is answered once
  for (const auto& t : request.topics) {
    auto [it, added] = topic_index.try_emplace(t.name, r.topics.size());
    if (added) r.topics.push_back({t.name, {}});
    auto& partitions = r.topics[it->second].partitions;
    for (const auto& p : t.partitions) {
      ListOffsetsResponse::Partition out;
      out.partition_index = p.partition_index;
      if (mentions[{t.name, p.partition_index}] > 1) {
        out.error_code = error::kInvalidRequest;
      } else if (p.timestamp < 0 && p.timestamp != kLatestTimestamp &&
                 p.timestamp != kEarliestTimestamp) {
        // -3 (max timestamp) and below came with later versions.
        out.error_code = error::kUnsupportedVersion;
      } else {
        try {
          const TopicPartition tp{t.name, p.partition_index};
          if (p.timestamp == kEarliestTimestamp || p.timestamp == kLatestTimestamp) {
            // Earliest and latest carry no timestamp.
            const LogManager::LogOffsets offsets = broker_.logs().log_offsets(tp);
            out.offset = p.timestamp == kEarliestTimestamp ? offsets.log_start_offset
                                                           : offsets.log_end_offset;
          } else if (const auto found = offset_at_time(tp, p.timestamp)) {
            // A time no record reaches keeps Kafka's answer: no error, offset and timestamp -1.
            out.timestamp = found->timestamp;
            out.offset = found->offset;
          }
        } catch (const KafkaError& e) {
          out.error_code = error_code_of(e.code());
        } catch (const StorageError& e) {
          out.error_code = error_code_of(kafka_error_code(e.code()));
        }
      }
      partitions.push_back(out);
    }
  }
  Writer out;
  write_response_header(out, correlation_id,
                        response_header_version(ApiKey::kListOffsets, version));
  write_list_offsets_response(out, r, version);
  return out.take();
}

std::string RequestHandler::init_producer_id(std::string_view body, int16_t version,
                                             int32_t correlation_id) const {
  Reader in(body);
  const InitProducerIdRequest request = read_init_producer_id_request(in, version);
  InitProducerIdResponse r;
  if (request.transactional_id) {
    // Transactions need a coordinator (FindCoordinator), which this broker is not.
    r.error_code = error::kNotCoordinator;
  } else {
    r.producer_id = next_producer_id_.fetch_add(1);
    r.producer_epoch = 0;
  }
  Writer out;
  write_response_header(out, correlation_id,
                        response_header_version(ApiKey::kInitProducerId, version));
  write_init_producer_id_response(out, r, version);
  return out.take();
}

}  // namespace lds::kafka
