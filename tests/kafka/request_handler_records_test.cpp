// request_handler_records_test.cpp: Produce, Fetch and ListOffsets through the request handler
// over a broker with real logs in a temp folder: offsets assigned from the log end, Kafka's
// per-partition errors, acks=0 answered with silence, the byte limits of a Fetch, a Fetch that
// waits for data, and the earliest and latest offsets; batches Kafka's validation refuses get its
// code (and from v8 the records at fault) and reach no log, compressed ones of every codec are
// appended and served as sent.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "broker/broker.h"
#include "client_batches.h"
#include "io/fd_reserve.h"
#include "io/file_slice.h"
#include "kafka/protocol/compression.h"
#include "kafka/protocol/fetch.h"
#include "kafka/protocol/headers.h"
#include "kafka/protocol/init_producer_id.h"
#include "kafka/protocol/list_offsets.h"
#include "kafka/protocol/produce.h"
#include "kafka/server/request_handler.h"
#include "model/record_batch.h"
#include "request_handler_fixture.h"
#include "storage/log_manager.h"
#include "temp_dir.h"
#include "util/logging.h"

namespace lds::kafka {
namespace {

using namespace std::chrono_literals;

// One log dir on disk, partitions t-0 and t-1, and the appends the handler reports counted.
class RecordsHandlerTest : public RequestHandlerFixture {
 protected:
  BrokerSetup broker_setup() const override {
    BrokerSetup setup;
    setup.log_dirs = {"d1"};
    setup.in_memory = false;
    setup.partitions = {0, 1};
    setup.extra_config = "admin.socket = \"unused.sock\"\n" + extra_config_;
    return setup;
  }
  void SetUp() override {
    RequestHandlerFixture::SetUp();
    if (HasFatalFailure()) return;
    handler_->set_on_append([this] { ++appends_; });
  }

  static std::string request(int16_t key, int16_t version, const Writer& body,
                             int header_version = 1) {
    Writer w;
    write_request_header(w, {key, version, 42, std::string("c")}, header_version);
    w.raw(body.bytes());
    return w.take();
  }

  // A batch of `n` records "k<i>" = "v<i>"; the broker gives it its offsets.
  static std::string batch(int n) {
    std::vector<Record> records;
    for (int i = 0; i < n; ++i) {
      Record r;
      r.offset_delta = i;
      r.key = "k" + std::to_string(i);
      r.value = "v" + std::to_string(i);
      records.push_back(std::move(r));
    }
    return build_batch(0, 1700000000000, records);
  }

  Reply produce(int16_t version, int16_t acks, const std::vector<ProduceRequest::Partition>& parts,
                const std::string& topic = "t") {
    ProduceRequest r;
    r.acks = acks;
    r.topics.push_back({topic, parts});
    Writer body;
    write_produce_request(body, r, version);
    return handler_->handle(request(0, version, body));
  }
  ProduceResponse produce_ok(int16_t version, const std::vector<ProduceRequest::Partition>& parts,
                             const std::string& topic = "t") {
    const Reply reply = produce(version, -1, parts, topic);
    EXPECT_TRUE(reply.close_reason.empty()) << reply.close_reason;
    Reader in(reply.frame);
    EXPECT_EQ(read_response_header(in, 0), 42);
    ProduceResponse r = read_produce_response(in, version);
    EXPECT_EQ(in.remaining(), 0u);
    return r;
  }

  // batch(n) as an idempotent producer sends it: its producer id, epoch and first sequence set,
  // and its CRC (over everything from the attributes on) computed again.
  static std::string idempotent_batch(int n, int64_t producer_id, int32_t first_sequence) {
    std::string b = batch(n);
    auto put = [&b](size_t at, uint64_t v, int bytes) {
      for (int i = 0; i < bytes; ++i) {
        b[at + static_cast<size_t>(i)] = static_cast<char>(v >> (8 * (bytes - 1 - i)));
      }
    };
    put(43, static_cast<uint64_t>(producer_id), 8);     // ProducerId
    put(51, 0, 2);                                      // ProducerEpoch
    put(53, static_cast<uint32_t>(first_sequence), 4);  // BaseSequence
    put(17, crc32c(std::string_view(b).substr(21)), 4);
    return b;
  }

  static FetchRequest fetch_of(int64_t offset, int32_t partition_max = 1 << 20,
                               int32_t max_wait = 0) {
    FetchRequest r;
    r.max_wait_ms = max_wait;
    r.min_bytes = 1;
    r.topics.push_back({"t", {{0, -1, offset, -1, partition_max}}});
    return r;
  }
  Reply fetch_reply(
      const FetchRequest& r, int16_t version = 11,
      std::chrono::steady_clock::time_point received = std::chrono::steady_clock::now()) {
    Writer body;
    write_fetch_request(body, r, version);
    return handler_->handle(request(1, version, body), received);
  }
  static FetchResponse decode_fetch(const Reply& reply, int16_t version = 11) {
    EXPECT_TRUE(reply.close_reason.empty()) << reply.close_reason;
    const std::string frame = joined(reply.frame, reply.splices);
    Reader in(frame);
    EXPECT_EQ(read_response_header(in, 0), 42);
    FetchResponse r = read_fetch_response(in, version);
    EXPECT_EQ(in.remaining(), 0u);
    return r;
  }

  ListOffsetsResponse list_offsets(const ListOffsetsRequest& r, int16_t version = 2) {
    Writer body;
    write_list_offsets_request(body, r, version);
    const Reply reply = handler_->handle(request(2, version, body));
    EXPECT_TRUE(reply.close_reason.empty()) << reply.close_reason;
    Reader in(reply.frame);
    EXPECT_EQ(read_response_header(in, 0), 42);
    ListOffsetsResponse out = read_list_offsets_response(in, version);
    EXPECT_EQ(in.remaining(), 0u);
    return out;
  }

  // Every record of `batches`, each with its absolute offset.
  static std::vector<std::pair<int64_t, Record>> records_of(const std::string& batches) {
    std::vector<std::pair<int64_t, Record>> out;
    for (std::string_view b : split_batches(batches)) {
      EXPECT_TRUE(batch_crc_matches(b));
      const RecordBatchHeader h = read_batch_header(b);
      for (const Record& r : read_records(b)) out.emplace_back(h.base_offset + r.offset_delta, r);
    }
    return out;
  }

  std::string extra_config_;  // TOML lines a derived fixture adds to the broker's file
  int appends_ = 0;
};

TEST_F(RecordsHandlerTest, ProduceAssignsOffsetsFromTheLogEndAndFetchReadsThemBack) {
  const ProduceResponse first = produce_ok(7, {{0, batch(3)}});
  EXPECT_EQ(first.topics.at(0).partitions.at(0).error_code, 0);
  EXPECT_EQ(first.topics.at(0).partitions.at(0).base_offset, 0);
  EXPECT_EQ(first.topics.at(0).partitions.at(0).log_start_offset, 0);
  const ProduceResponse second = produce_ok(3, {{0, batch(2)}, {1, batch(1)}});
  EXPECT_EQ(second.topics.at(0).partitions.at(0).base_offset, 3);
  EXPECT_EQ(second.topics.at(0).partitions.at(1).base_offset, 0);
  EXPECT_EQ(appends_, 2);

  for (int16_t version : {int16_t{4}, int16_t{11}}) {
    const FetchResponse r = decode_fetch(fetch_reply(fetch_of(0), version), version);
    EXPECT_EQ(r.session_id, 0);
    const FetchResponse::Partition& p = r.topics.at(0).partitions.at(0);
    EXPECT_EQ(p.error_code, 0);
    EXPECT_EQ(p.high_watermark, 5);
    EXPECT_EQ(p.last_stable_offset, 5);
    EXPECT_EQ(p.aborted_transactions, std::nullopt);
    const auto records = records_of(p.records.value_or(""));
    ASSERT_EQ(records.size(), 5u);
    for (size_t i = 0; i < records.size(); ++i) EXPECT_EQ(records[i].first, int64_t(i));
    EXPECT_EQ(records[3].second.key, "k0");
    EXPECT_EQ(records[4].second.value, "v1");
  }
}

TEST_F(RecordsHandlerTest, ProduceErrorsArePerPartition) {
  const ProduceResponse r = produce_ok(5, {{0, batch(1)}, {7, batch(1)}, {1, std::nullopt}});
  const auto& parts = r.topics.at(0).partitions;
  EXPECT_EQ(parts.at(0).error_code, 0);
  EXPECT_EQ(parts.at(1).error_code, 3);  // UNKNOWN_TOPIC_OR_PARTITION
  EXPECT_EQ(parts.at(1).base_offset, -1);
  EXPECT_EQ(parts.at(1).log_start_offset, -1);
  EXPECT_EQ(parts.at(2).error_code, 87);  // INVALID_RECORD: no records at all

  std::string corrupt = batch(2);
  corrupt.back() = static_cast<char>(corrupt.back() ^ 1);
  EXPECT_EQ(produce_ok(7, {{0, corrupt}}).topics.at(0).partitions.at(0).error_code,
            2);  // CORRUPT_MESSAGE
  EXPECT_EQ(produce_ok(7, {{0, batch(1)}}, "absent").topics.at(0).partitions.at(0).error_code, 3);
  // Only the good batch was appended: offset 0, and the next goes to 1.
  EXPECT_EQ(produce_ok(7, {{0, batch(1)}}).topics.at(0).partitions.at(0).base_offset, 1);
}

TEST_F(RecordsHandlerTest, InvalidAcksAppendNothing) {
  const ProduceResponse r = produce_ok(7, {{0, batch(1)}});
  ASSERT_EQ(r.topics.at(0).partitions.at(0).base_offset, 0);
  const Reply two = produce(7, 2, {{0, batch(1)}, {1, batch(1)}});
  Reader in(two.frame);
  read_response_header(in, 0);
  const ProduceResponse refused = read_produce_response(in, 7);
  for (const auto& p : refused.topics.at(0).partitions) EXPECT_EQ(p.error_code, 21);
  EXPECT_EQ(broker_->logs().log_offsets({"t", 0}).log_end_offset, 1);
  EXPECT_EQ(broker_->logs().log_offsets({"t", 1}).log_end_offset, 0);
}

TEST_F(RecordsHandlerTest, ARefusedBatchGetsKafkasCodeAndTheRecordsAtFaultAndReachesNoLog) {
  ASSERT_EQ(produce_ok(8, {{0, batch(2)}}).topics.at(0).partitions.at(0).error_code, 0);
  const std::string control = test::with_field<int16_t>(batch(1), test::kAttributesAt, 0x20);
  const std::string plain = batch(2);
  const std::string codec7 = test::with_records_area(plain, test::records_area(plain), 7);
  // One record whose key (50 bytes by its length) runs past it, under a valid CRC.
  std::string area = test::records_area(batch(1));
  area[4] = 100;  // after length, attributes, timestampDelta, offsetDelta: the key's, zigzag 50
  const std::string malformed = test::with_records_area(batch(1), area, 0);
  const ProduceResponse r = produce_ok(8, {{0, control}, {1, plain + plain}, {7, codec7}}, "t");
  const auto& p = r.topics.at(0).partitions;
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].error_code, 87);  // INVALID_RECORD
  EXPECT_EQ(p[0].error_message,
            "Clients are not allowed to write control records in topic partition t-0.");
  EXPECT_TRUE(p[0].record_errors.empty());
  EXPECT_EQ(p[1].error_code, 87);  // two batches for one partition
  EXPECT_NE(p[1].error_message.value_or("").find("exactly one record batch per partition"),
            std::string::npos);
  // A partition this broker does not host is that first, whatever its batch holds (Kafka's
  // ReplicaManager looks the partition up before the log validates).
  EXPECT_EQ(p[2].error_code, 3);
  for (const auto& part : p) EXPECT_EQ(part.base_offset, -1);

  // On partitions that exist: codec 7, and a record that does not frame, named by its index.
  broker_->logs().create_partition("u", 0);
  broker_->logs().create_partition("u", 1);
  const ProduceResponse u = produce_ok(8, {{0, codec7}, {1, malformed}}, "u");
  EXPECT_EQ(u.topics.at(0).partitions.at(0).error_code, 76);  // UNSUPPORTED_COMPRESSION_TYPE
  const auto& bad = u.topics.at(0).partitions.at(1);
  EXPECT_EQ(bad.error_code, 87);
  ASSERT_EQ(bad.record_errors.size(), 1u);
  EXPECT_EQ(bad.record_errors[0].batch_index, 0);
  EXPECT_EQ(bad.record_errors[0].message,
            "Record 0 does not frame as a Kafka record: its key of 50 bytes runs past it in "
            "topic partition u-1");
  EXPECT_NE(bad.error_message.value_or("").find(*bad.record_errors[0].message), std::string::npos);
  // Version 7 answers the same code without the list.
  const ProduceResponse v7 = produce_ok(7, {{1, malformed}}, "u");
  EXPECT_EQ(v7.topics.at(0).partitions.at(0).error_code, 87);
  EXPECT_TRUE(v7.topics.at(0).partitions.at(0).record_errors.empty());

  // Nothing of them reached a log: t-0 still ends at 2 and reads back its two records.
  EXPECT_EQ(broker_->logs().log_offsets({"t", 0}).log_end_offset, 2);
  EXPECT_EQ(broker_->logs().log_offsets({"u", 0}).log_end_offset, 0);
  EXPECT_EQ(broker_->logs().log_offsets({"u", 1}).log_end_offset, 0);
  const FetchResponse f = decode_fetch(fetch_reply(fetch_of(0)));
  EXPECT_EQ(records_of(f.topics.at(0).partitions.at(0).records.value_or("")).size(), 2u);
}

TEST_F(RecordsHandlerTest, CompressedBatchesOfEveryCodecAreAppendedAndServedAsSent) {
  std::vector<std::string> sent;
  int64_t next = 0;
  for (Codec codec : {Codec::kNone, Codec::kGzip, Codec::kSnappy, Codec::kLz4, Codec::kZstd}) {
    sent.push_back(test::compressed_batch(codec, test::numbered_records(5)));
    const ProduceResponse r = produce_ok(8, {{0, sent.back()}});
    EXPECT_EQ(r.topics.at(0).partitions.at(0).error_code, 0)
        << r.topics.at(0).partitions.at(0).error_message.value_or("");
    EXPECT_EQ(r.topics.at(0).partitions.at(0).base_offset, next);
    next += 5;
  }
  const FetchResponse f = decode_fetch(fetch_reply(fetch_of(0)));
  const std::string got = f.topics.at(0).partitions.at(0).records.value_or("");
  const std::vector<std::string_view> batches = split_batches(got);
  ASSERT_EQ(batches.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i) {
    // Byte for byte as sent, but for the baseOffset the log gave it (outside the CRC).
    std::string expected = sent[i];
    set_base_offset(expected, 0, static_cast<int64_t>(5 * i));
    EXPECT_EQ(batches[i], expected) << "batch " << i;
  }
}

TEST_F(RecordsHandlerTest, ZstdBatchesNeedProduceVersion7) {
  std::string zstd = batch(1);
  zstd[kBatchCrcCoverageStart + 1] = 4;  // attributes: ZStandard
  zstd.replace(kBatchCrcOffset, 4, std::string(4, '\0'));
  const uint32_t crc = compute_batch_crc(zstd);
  for (int i = 0; i < 4; ++i) zstd[kBatchCrcOffset + i] = static_cast<char>(crc >> (24 - 8 * i));
  EXPECT_EQ(produce_ok(6, {{0, zstd}}).topics.at(0).partitions.at(0).error_code, 76);
  EXPECT_EQ(broker_->logs().log_offsets({"t", 0}).log_end_offset, 0);
}

TEST_F(RecordsHandlerTest, AcksZeroIsAnsweredWithSilenceOrAClosedConnection) {
  const Reply ok = produce(7, 0, {{0, batch(2)}});
  EXPECT_TRUE(ok.frame.empty());
  EXPECT_TRUE(ok.close_reason.empty()) << ok.close_reason;
  EXPECT_FALSE(ok.retry_at.has_value());
  EXPECT_EQ(broker_->logs().log_offsets({"t", 0}).log_end_offset, 2);
  // A failure cannot be answered, so the connection closes and the producer refreshes metadata.
  const Reply failed = produce(7, 0, {{9, batch(1)}});
  EXPECT_TRUE(failed.frame.empty());
  EXPECT_NE(failed.close_reason.find("t-9: UNKNOWN_TOPIC_OR_PARTITION"), std::string::npos)
      << failed.close_reason;
}

TEST_F(RecordsHandlerTest, FetchPastTheLogEndIsOutOfRangeAndAtTheEndIsEmpty) {
  produce_ok(7, {{0, batch(2)}});
  const FetchResponse past = decode_fetch(fetch_reply(fetch_of(3)));
  const auto& p = past.topics.at(0).partitions.at(0);
  EXPECT_EQ(p.error_code, 1);  // OFFSET_OUT_OF_RANGE
  EXPECT_EQ(p.high_watermark, -1);
  EXPECT_EQ(p.records, std::string());
  const FetchResponse end = decode_fetch(fetch_reply(fetch_of(2)));
  EXPECT_EQ(end.topics.at(0).partitions.at(0).error_code, 0);
  EXPECT_EQ(end.topics.at(0).partitions.at(0).high_watermark, 2);
  EXPECT_EQ(end.topics.at(0).partitions.at(0).records, std::string());
  FetchRequest unknown = fetch_of(0);
  unknown.topics[0].topic = "absent";
  EXPECT_EQ(decode_fetch(fetch_reply(unknown)).topics.at(0).partitions.at(0).error_code, 3);
}

TEST_F(RecordsHandlerTest, FetchKeepsToTheByteLimitsButReturnsTheFirstBatchWhole) {
  for (int i = 0; i < 3; ++i) produce_ok(7, {{0, batch(10)}, {1, batch(10)}});
  const size_t one = batch(10).size();
  // partition_max_bytes below one batch: the first batch still comes, whole.
  const FetchResponse small = decode_fetch(fetch_reply(fetch_of(0, 10)));
  EXPECT_EQ(small.topics.at(0).partitions.at(0).records->size(), one);
  // max_bytes of two batches over two partitions: the first takes both, the second none.
  FetchRequest two = fetch_of(0);
  two.max_bytes = static_cast<int32_t>(2 * one);
  two.topics[0].partitions.push_back({1, -1, 0, -1, 1 << 20});
  const FetchResponse r = decode_fetch(fetch_reply(two));
  EXPECT_EQ(r.topics.at(0).partitions.at(0).records->size(), 2 * one);
  EXPECT_EQ(r.topics.at(0).partitions.at(1).records->size(), 0u);
  EXPECT_EQ(r.topics.at(0).partitions.at(1).high_watermark, 30);
}

// Zero-copy Fetch: batches of kSmallestSlice bytes or more stay in their segment, a slice of it for
// the listener to send (sendfile); fewer are copied into the reply, and so is everything once
// slice_budget() slices are held (a client that never reads must not pin every descriptor).
TEST_F(RecordsHandlerTest, ALargeFetchLeavesItsBatchesInTheSegmentForTheListenerToSend) {
  std::vector<Record> records(1);
  records[0].value = std::string(LogManager::kSmallestSlice, 'v');
  produce_ok(7, {{0, build_batch(0, 1700000000000, records)}});
  produce_ok(7, {{0, batch(3)}});
  const Reply large = fetch_reply(fetch_of(0, 1));
  ASSERT_EQ(large.splices.size(), 1u);
  EXPECT_GE(large.splices[0].slice.length, LogManager::kSmallestSlice);
  EXPECT_LT(large.frame.size(), 100u);  // the headers only
  const std::string sent = decode_fetch(large).topics.at(0).partitions.at(0).records.value();
  EXPECT_EQ(sent.size(), large.splices[0].slice.length);
  EXPECT_EQ(records_of(sent).at(0).second.value, records[0].value);

  const Reply small = fetch_reply(fetch_of(1));
  EXPECT_TRUE(small.splices.empty());
  EXPECT_EQ(records_of(decode_fetch(small).topics.at(0).partitions.at(0).records.value()).size(),
            3u);

  std::vector<Reply> held;
  while (open_slice_files() < slice_budget()) {
    held.push_back(fetch_reply(fetch_of(0, 1)));
    ASSERT_EQ(held.back().splices.size(), 1u) << held.size();
  }
  const Reply copied = fetch_reply(fetch_of(0, 1));
  EXPECT_TRUE(copied.splices.empty());
  EXPECT_EQ(decode_fetch(copied).topics.at(0).partitions.at(0).records.value(), sent);
  held.pop_back();
  EXPECT_EQ(fetch_reply(fetch_of(0, 1)).splices.size(), 1u);
}

TEST_F(RecordsHandlerTest, BatchesNotInThePageCacheAreReadByTheHandlerNotLeftToTheSender) {
  std::vector<Record> records(1);
  records[0].value = std::string(LogManager::kSmallestSlice * 4, 'v');
  produce_ok(7, {{0, build_batch(0, 1700000000000, records)}});
  const std::string expected =
      decode_fetch(fetch_reply(fetch_of(0, 1))).topics.at(0).partitions.at(0).records.value();
  // Out of the page cache: written back, then dropped (ext4 and the like; tmpfs keeps them).
  const std::filesystem::path segment = dir_.path() / "d1" / "t-0" / "00000000000000000000.log";
  ReservedFd fd = open_reserved(segment, O_RDONLY | O_CLOEXEC);
  ASSERT_TRUE(fd) << segment;
  ASSERT_EQ(::fdatasync(fd.get()), 0);
  ASSERT_EQ(::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED), 0);
  const FileSlice whole{std::make_shared<const SliceFile>(std::move(fd), segment), 0,
                        std::filesystem::file_size(segment)};
  if (in_page_cache(whole)) GTEST_SKIP() << "the temp folder's filesystem keeps its pages cached";

  const Reply cold = fetch_reply(fetch_of(0, 1));
  EXPECT_TRUE(cold.splices.empty()) << "a cold segment was left for the sending thread to read";
  EXPECT_EQ(decode_fetch(cold).topics.at(0).partitions.at(0).records.value(), expected);
  // That read brought the pages back: the next Fetch leaves them in the file.
  EXPECT_TRUE(in_page_cache(whole));
  EXPECT_EQ(fetch_reply(fetch_of(0, 1)).splices.size(), 1u);
}

// fetch.max.bytes caps what a Fetch asks for, as Kafka caps a consumer's max_bytes and min_bytes
// with it: a client cannot have a reply of more built in memory.
class CappedFetchTest : public RecordsHandlerTest {
 protected:
  CappedFetchTest() { extra_config_ = "fetch.max.bytes = 1024\n"; }
};

TEST_F(CappedFetchTest, FetchMaxBytesCapsMaxBytesAndMinBytes) {
  std::vector<Record> records(1);
  records[0].value = std::string(600, 'v');
  const std::string big = build_batch(0, 1700000000000, records);
  ASSERT_GT(big.size(), 600u);
  for (int i = 0; i < 4; ++i) produce_ok(7, {{0, big}});
  // max_bytes of 1 MiB: 1024 bytes' worth, one batch of about 700.
  FetchRequest r = fetch_of(0);
  r.max_bytes = 1 << 20;
  EXPECT_EQ(decode_fetch(fetch_reply(r)).topics.at(0).partitions.at(0).records->size(), big.size());
  // The first batch comes whole even past the cap (KIP-74).
  std::vector<Record> huge(1);
  huge[0].value = std::string(5000, 'h');
  produce_ok(7, {{1, build_batch(0, 1700000000000, huge)}});
  r.topics[0].partitions[0].partition = 1;
  EXPECT_GT(decode_fetch(fetch_reply(r)).topics.at(0).partitions.at(0).records->size(), 5000u);
  // min_bytes above the cap waits for no more than the cap: two batches here answer at once.
  FetchRequest wait = fetch_of(2, 1 << 20, 5000);
  wait.min_bytes = 1 << 20;
  wait.max_bytes = 1 << 20;
  const Reply answered = fetch_reply(wait);
  EXPECT_FALSE(answered.retry_at.has_value());
  EXPECT_EQ(decode_fetch(answered).topics.at(0).partitions.at(0).records->size(), big.size());
}

TEST_F(RecordsHandlerTest, AFetchAtTheLogEndWaitsUntilDataArrivesOrMaxWaitPasses) {
  produce_ok(7, {{0, batch(1)}});
  const auto received = std::chrono::steady_clock::now();
  const Reply waiting = fetch_reply(fetch_of(1, 1 << 20, 5000), 11, received);
  EXPECT_TRUE(waiting.frame.empty());
  EXPECT_TRUE(waiting.close_reason.empty());
  ASSERT_TRUE(waiting.retry_at.has_value());
  EXPECT_EQ(*waiting.retry_at, received + 5000ms);
  // Asked again after a Produce: the new batch is there.
  produce_ok(7, {{0, batch(2)}});
  const FetchResponse r = decode_fetch(fetch_reply(fetch_of(1, 1 << 20, 5000), 11, received));
  EXPECT_EQ(records_of(*r.topics.at(0).partitions.at(0).records).size(), 2u);
  // Asked again once max_wait_ms has passed, with still nothing new: an empty answer.
  const FetchResponse late =
      decode_fetch(fetch_reply(fetch_of(3, 1 << 20, 100), 11, received - 1s));
  EXPECT_EQ(late.topics.at(0).partitions.at(0).records, std::string());
  EXPECT_EQ(late.topics.at(0).partitions.at(0).high_watermark, 3);
  // An error does not wait.
  EXPECT_FALSE(fetch_reply(fetch_of(9, 1 << 20, 5000)).frame.empty());
}

TEST_F(RecordsHandlerTest, FetchSessionsAreDeclined) {
  FetchRequest open = fetch_of(0);
  open.session_epoch = 0;  // asks for a session: answered sessionless (id 0)
  const FetchResponse r = decode_fetch(fetch_reply(open));
  EXPECT_EQ(r.error_code, 0);
  EXPECT_EQ(r.session_id, 0);
  EXPECT_EQ(r.topics.size(), 1u);
  FetchRequest incremental = fetch_of(0);
  incremental.session_id = 12;
  incremental.session_epoch = 3;
  const FetchResponse refused = decode_fetch(fetch_reply(incremental));
  EXPECT_EQ(refused.error_code, 70);  // FETCH_SESSION_ID_NOT_FOUND
  EXPECT_TRUE(refused.topics.empty());
}

TEST_F(RecordsHandlerTest, ListOffsetsAnswersEarliestAndLatest) {
  produce_ok(7, {{0, batch(4)}});
  ListOffsetsRequest r;
  r.topics.push_back(
      {"t", {{0, kEarliestTimestamp}, {1, kLatestTimestamp}, {5, kLatestTimestamp}}});
  r.topics.push_back({"u", {{0, kEarliestTimestamp}}});
  r.topics.push_back({"t", {{0 + 100, 1700000000000}}});
  const ListOffsetsResponse first = list_offsets(r, 1);
  ASSERT_EQ(first.topics.size(), 2u);
  const auto& t = first.topics[0].partitions;
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].offset, 0);
  EXPECT_EQ(t[0].timestamp, -1);
  EXPECT_EQ(t[1].offset, 0);
  EXPECT_EQ(t[2].error_code, 3);
  EXPECT_EQ(t[2].offset, -1);
  EXPECT_EQ(t[3].error_code, 3);
  EXPECT_EQ(first.topics[1].partitions.at(0).error_code, 3);

  ListOffsetsRequest latest;
  latest.topics.push_back({"t", {{0, kLatestTimestamp}, {1, 1700000000000}, {1, -3}}});
  const ListOffsetsResponse second = list_offsets(latest, 2);
  const auto& p = second.topics.at(0).partitions;
  EXPECT_EQ(p.at(0).offset, 4);
  EXPECT_EQ(p.at(1).error_code, 42);  // partition 1 named twice: INVALID_REQUEST
  EXPECT_EQ(p.at(2).error_code, 42);
  ListOffsetsRequest others;
  others.topics.push_back({"t", {{0, 1700000000000}, {1, -3}}});
  const ListOffsetsResponse answered = list_offsets(others, 2);
  const auto& o = answered.topics.at(0).partitions;
  EXPECT_EQ(o.at(0).error_code, 0);  // every record has that time: the first one
  EXPECT_EQ(o.at(0).offset, 0);
  EXPECT_EQ(o.at(0).timestamp, 1700000000000);
  EXPECT_EQ(o.at(1).error_code, 35);  // -3 (max timestamp) needs ListOffsets 7
}

TEST_F(RecordsHandlerTest, ListOffsetsByTimeAnswersTheFirstRecordAtOrAfterItAsKafkaDoes) {
  // Batches whose records' times go back and forth (CreateTime is the producer's), one of them
  // compressed: Kafka answers the first record, in offset order, of the first batch whose max
  // timestamp reaches the time.
  const auto timed = [](const std::vector<int64_t>& deltas, int64_t base) {
    std::vector<Record> records;
    for (size_t i = 0; i < deltas.size(); ++i) {
      Record r;
      r.offset_delta = static_cast<int32_t>(i);
      r.timestamp_delta = deltas[i];
      r.value = "v" + std::to_string(i);
      records.push_back(std::move(r));
    }
    return build_batch(0, base, records);
  };
  constexpr int64_t t0 = 1700000000000;
  produce_ok(7, {{0, timed({0, 10, 20}, t0)}});        // offsets 0-2: t0, t0+10, t0+20
  produce_ok(7, {{0, timed({50, 5, 60}, t0 + 100)}});  // 3-5: t0+150, t0+105, t0+160
  std::vector<Record> zipped;
  for (int i = 0; i < 3; ++i) {
    Record r;
    r.offset_delta = i;
    r.timestamp_delta = 1000 + i;
    r.value = std::string(64, 'z');
    zipped.push_back(std::move(r));
  }
  produce_ok(7, {{0, test::compressed_batch(Codec::kGzip, zipped)}});  // 6-8: t0+1000...
  const std::vector<std::pair<int64_t, std::pair<int64_t, int64_t>>> cases = {
      {t0 - 1, {0, t0}},           {t0, {0, t0}},
      {t0 + 11, {2, t0 + 20}},     {t0 + 21, {3, t0 + 150}},
      {t0 + 106, {3, t0 + 150}},   {t0 + 151, {5, t0 + 160}},
      {t0 + 161, {6, t0 + 1000}},  {t0 + 1001, {7, t0 + 1001}},
      {t0 + 1002, {8, t0 + 1002}}, {t0 + 1003, {-1, -1}},
  };
  for (const auto& [time, want] : cases) {
    ListOffsetsRequest r;
    r.topics.push_back({"t", {{0, time}}});
    const ListOffsetsResponse response = list_offsets(r, 1);
    const auto& answer = response.topics.at(0).partitions.at(0);
    EXPECT_EQ(answer.error_code, 0) << time;
    EXPECT_EQ(answer.offset, want.first) << time - t0;
    EXPECT_EQ(answer.timestamp, want.second) << time - t0;
  }
}

TEST_F(RecordsHandlerTest, AnIdempotentProducersRetryIsNotAppendedTwice) {
  // InitProducerId hands out a new id at epoch 0 each time; a transactional id is refused.
  auto init = [&](std::optional<std::string> transactional_id) {
    Writer body;
    write_init_producer_id_request(body, {std::move(transactional_id), 60000, -1, -1}, 4);
    const Reply reply = handler_->handle(request(22, 4, body, 2));
    Reader in(reply.frame);
    EXPECT_EQ(read_response_header(in, 1), 42);
    return read_init_producer_id_response(in, 4);
  };
  const InitProducerIdResponse first = init(std::nullopt);
  const InitProducerIdResponse second = init(std::nullopt);
  EXPECT_EQ(first.error_code, 0);
  EXPECT_GE(first.producer_id, 0);
  EXPECT_EQ(first.producer_epoch, 0);
  EXPECT_NE(first.producer_id, second.producer_id);
  EXPECT_EQ(init(std::string("tx")).error_code, 16);  // NOT_COORDINATOR

  const int64_t id = first.producer_id;
  EXPECT_EQ(produce_ok(8, {{0, idempotent_batch(3, id, 0)}}).topics[0].partitions[0].base_offset,
            0);
  // The retry of a batch whose answer was lost: its first offset again, nothing appended.
  EXPECT_EQ(produce_ok(8, {{0, idempotent_batch(3, id, 0)}}).topics[0].partitions[0].base_offset,
            0);
  EXPECT_EQ(broker_->logs().log_offsets({"t", 0}).log_end_offset, 3);
  const auto gap = produce_ok(8, {{0, idempotent_batch(1, id, 7)}}).topics[0].partitions[0];
  EXPECT_EQ(gap.error_code, 45);  // OUT_OF_ORDER_SEQUENCE_NUMBER
  EXPECT_EQ(gap.base_offset, -1);
  EXPECT_EQ(produce_ok(8, {{0, idempotent_batch(2, id, 3)}}).topics[0].partitions[0].base_offset,
            3);
  EXPECT_EQ(broker_->logs().log_offsets({"t", 0}).log_end_offset, 5);
}

}  // namespace
}  // namespace lds::kafka
