// kafka_records_test.cpp: records through the Kafka listener of a running lds-host, with kcat:
// 10,000 keyed messages with headers produced and consumed back in order, the segments valid
// Kafka logs batch by batch, the same messages read again after a move to another log dir, and a
// kill -9 during a produce losing no acknowledged message and leaving whole batches only; a
// batch one byte over message.max.bytes refused with nothing written; and batches Kafka's
// LogValidator refuses, each answered with Kafka's code, leaving the partition readable by kcat,
// confluent-kafka and kafka-python, with batches of every codec before and after them.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "client_batches.h"
#include "kafka/protocol/produce.h"
#include "kafka_listener_fixture.h"
#include "model/record_batch.h"

extern char** environ;

namespace lds::integration {
namespace {

using namespace std::chrono_literals;

// Message i as the tests produce it: key "key-<i>", a value of about 60 bytes.
std::string key_of(int i) { return "key-" + std::to_string(i); }
std::string value_of(int i) {
  return "value-" + std::to_string(i) + "-" + std::string(static_cast<size_t>(40 + i % 17), 'v');
}

// `count` lines "key:value" for kcat -P -K:.
fs::path write_messages(const fs::path& file, int count) {
  std::ofstream out(file);
  for (int i = 0; i < count; ++i) out << key_of(i) << ':' << value_of(i) << '\n';
  return file;
}

// One message as kcat -C -J prints it.
struct Consumed {
  int64_t offset = -1;
  std::string key;
  std::string value;
  std::vector<std::string> headers;  // name, value, name, value...
};

// kcat -C -J's lines; anything else it prints (diagnostics) is skipped.
std::vector<Consumed> parse_consumed(const std::string& out) {
  std::vector<Consumed> messages;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] != '{') continue;
    const json m = json::parse(line, nullptr, false);
    if (m.is_discarded() || !m.contains("offset")) continue;
    Consumed c;
    c.offset = m["offset"].get<int64_t>();
    if (m["key"].is_string()) c.key = m["key"].get<std::string>();
    if (m["payload"].is_string()) c.value = m["payload"].get<std::string>();
    if (m.contains("headers")) {
      for (const auto& h : m["headers"])
        c.headers.push_back(h.is_string() ? h.get<std::string>() : "");
    }
    messages.push_back(std::move(c));
  }
  return messages;
}

// The segment files (*.log) of a partition directory, by name (= base offset) order.
std::vector<fs::path> segments_of(const fs::path& partition_dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(partition_dir)) {
    if (e.path().extension() == ".log") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Checks that every segment of `partition_dir` is a sequence of whole v2 batches whose CRC32C
// matches, each segment named by its first offset, and offsets following on without a gap.
// Returns the records counted.
int64_t expect_valid_kafka_log(const fs::path& partition_dir) {
  const std::vector<fs::path> segments = segments_of(partition_dir);
  EXPECT_FALSE(segments.empty()) << partition_dir;
  int64_t next = 0;
  for (const fs::path& segment : segments) {
    const std::string bytes = read_file(segment);
    std::vector<std::string_view> batches;
    try {
      batches = kafka::split_batches(bytes);
    } catch (const std::exception& e) {
      ADD_FAILURE() << segment << " is not whole batches: " << e.what();
      continue;
    }
    EXPECT_EQ(std::stoll(segment.stem().string()),
              batches.empty() ? next : kafka::read_batch_header(batches[0]).base_offset)
        << segment;
    for (std::string_view batch : batches) {
      const kafka::RecordBatchHeader h = kafka::read_batch_header(batch);
      EXPECT_TRUE(kafka::batch_crc_matches(batch)) << segment << " offset " << h.base_offset;
      EXPECT_EQ(h.base_offset, next) << segment;
      next = h.base_offset + h.last_offset_delta + 1;
    }
  }
  return next;
}

// Starts `argv` with stdin from `in` (or /dev/null) and stderr to `err`; stdout is discarded.
pid_t spawn_client(const std::vector<std::string>& argv, const fs::path& in, const fs::path& err) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, in.empty() ? "/dev/null" : in.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  if (::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

// Lines "key:value" for kcat -P -K: of messages `from` to `to` - 1.
fs::path write_message_range(const fs::path& file, int from, int to) {
  std::ofstream out(file);
  for (int i = from; i < to; ++i) out << key_of(i) << ':' << value_of(i) << '\n';
  return file;
}

class KafkaRecordsTest : public KafkaListenerTest {
 protected:
  void SetUp() override {
    KafkaListenerTest::SetUp();
    if (!on_path("kcat")) GTEST_SKIP() << "kcat is not installed (tools/install-deps.sh adds it)";
  }

  // The log dir that holds `tp` ("t-0") now, not as a future replica.
  fs::path dir_of(const std::string& tp) {
    for (const auto& d : log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}))) {
      for (const auto& p : d["partitions"]) {
        if (p["partition"] == tp && !p["isFuture"].get<bool>())
          return d["logDir"].get<std::string>();
      }
    }
    return {};
  }

  // kcat -C from the beginning of one partition to its end; the messages read. -q: no "Reached end
  // of partition" on stderr, which shares the pipe and could land inside a JSON line.
  std::vector<Consumed> consume(const std::string& topic, int partition) {
    const ProcessResult r = run_command("kcat -C -b " + address_ + " -t " + topic + " -p " +
                                            std::to_string(partition) + " -o beginning -e -q -J",
                                        120);
    EXPECT_EQ(r.exit_code, 0) << r.out.substr(0, 2000);
    return parse_consumed(r.out);
  }

  // Every message 0..count-1 once, in order, at offsets 0..count-1, with the headers kcat -H set.
  void expect_all_messages(const std::vector<Consumed>& got, int count) {
    ASSERT_EQ(got.size(), static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
      const Consumed& m = got[static_cast<size_t>(i)];
      ASSERT_EQ(m.offset, i);
      ASSERT_EQ(m.key, key_of(i)) << "offset " << i;
      ASSERT_EQ(m.value, value_of(i)) << "offset " << i;
      ASSERT_EQ(m.headers, (std::vector<std::string>{"trace", "lds-test", "origin", "kcat"}))
          << "offset " << i;
    }
  }
};

TEST_F(KafkaRecordsTest, KcatProducesTenThousandMessagesAndReadsThemBackBeforeAndAfterAMove) {
  constexpr int kCount = 10000;
  // Small segments, so that the messages span several and the log rolls while kcat produces (its
  // batches kept below a segment, which refuses larger ones as Kafka does).
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(2), "log.segment.bytes = 262144"));
  call_ok({{"api", "CreatePartitions"}, {"topic", "orders"}, {"partitions", {0}}});
  const fs::path input = write_messages(temp_ / "messages.txt", kCount);
  const ProcessResult produced = run_command(
      "kcat -P -b " + address_ + " -t orders -p 0 -K: -H trace=lds-test -H origin=kcat " +
          "-X acks=all -X batch.size=65536 -l " + input.string(),
      120);
  ASSERT_EQ(produced.exit_code, 0) << produced.out;
  expect_all_messages(consume("orders", 0), kCount);

  const fs::path source = dir_of("orders-0");
  ASSERT_FALSE(source.empty());
  EXPECT_EQ(expect_valid_kafka_log(source / "orders-0"), kCount);
  EXPECT_GE(segments_of(source / "orders-0").size(), 3u);

  // Moved to the other dir (KIP-113), then read again from there.
  const fs::path target = source == config_.log_dirs[0] ? config_.log_dirs[1] : config_.log_dirs[0];
  // Sent by kafka-python, with the AlterReplicaLogDirs request classes of kafka_requests.py; it
  // waits until DescribeLogDirs shows the partition in `target`.
  const json moved = admin_client(address_, "move orders 0 " + target.string());
  ASSERT_EQ(moved["error_code"], 0) << moved.dump();
  ASSERT_EQ(dir_of("orders-0"), target);
  EXPECT_FALSE(fs::exists(source / "orders-0"));
  EXPECT_EQ(expect_valid_kafka_log(target / "orders-0"), kCount);
  expect_all_messages(consume("orders", 0), kCount);
}

TEST_F(KafkaRecordsTest, KcatReadsFromATimeThroughTheTimeIndex) {
  // Two runs of kcat -P a moment apart, enough bytes for several index entries each; kcat -C
  // -o s@<time between them> (ListOffsets by time) starts at the second run's first message.
  constexpr int kEach = 3000;
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(1)));
  call_ok({{"api", "CreatePartitions"}, {"topic", "timed"}, {"partitions", {0}}});
  const auto produce = [&](int from, int to) {
    const fs::path input =
        write_message_range(temp_ / ("from-" + std::to_string(from) + ".txt"), from, to);
    const ProcessResult r =
        run_command("kcat -P -b " + address_ +
                        " -t timed -p 0 -K: -X acks=all -X batch.size=4096 -l " + input.string(),
                    120);
    ASSERT_EQ(r.exit_code, 0) << r.out;
  };
  const auto now_ms = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  const int64_t before = now_ms();
  ASSERT_NO_FATAL_FAILURE(produce(0, kEach));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const int64_t between = now_ms();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_NO_FATAL_FAILURE(produce(kEach, 2 * kEach));
  const fs::path dir = dir_of("timed-0");
  ASSERT_FALSE(dir.empty());
  EXPECT_GT(fs::file_size(dir / "timed-0" / "00000000000000000000.index"), 8u * 4);
  EXPECT_TRUE(fs::exists(dir / "timed-0" / "00000000000000000000.timeindex"));
  const auto from_time = [&](int64_t t) {
    const ProcessResult r = run_command(
        "kcat -C -b " + address_ + " -t timed -p 0 -o s@" + std::to_string(t) + " -e -q -J", 120);
    EXPECT_EQ(r.exit_code, 0) << r.out.substr(0, 2000);
    return parse_consumed(r.out);
  };
  const std::vector<Consumed> second = from_time(between);
  ASSERT_EQ(second.size(), static_cast<size_t>(kEach));
  EXPECT_EQ(second.front().offset, kEach);
  EXPECT_EQ(second.front().key, key_of(kEach));
  EXPECT_EQ(from_time(before).size(), static_cast<size_t>(2 * kEach));
}

TEST_F(KafkaRecordsTest, KillNineDuringAProduceLosesNoAcknowledgedMessage) {
  constexpr int kCount = 400000;  // far more than can be sent before the kill
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(1), "log.segment.bytes = 1048576"));
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0}}});
  const fs::path input = write_messages(temp_ / "messages.txt", kCount);
  const fs::path reports = temp_ / "delivery.txt";
  // -v -v: kcat prints a delivery report for every message the broker acknowledged (acks=all),
  // "Message delivered to partition 0 (offset N)", as librdkafka hands it over.
  const pid_t kcat = spawn_client(
      {"kcat", "-P", "-b", address_, "-t", "t", "-p", "0", "-K:", "-H", "trace=lds-test", "-H",
       "origin=kcat", "-X", "acks=all", "-X", "batch.size=65536", "-v", "-v"},
      input, reports);
  ASSERT_GT(kcat, 0);
  const std::regex delivered("Message delivered to partition 0 \\(offset ([0-9]+)\\)");
  auto acknowledged = [&] {
    std::set<int64_t> offsets;
    const std::string text = read_file(reports);
    for (std::sregex_iterator it(text.begin(), text.end(), delivered), end; it != end; ++it) {
      offsets.insert(std::stoll((*it)[1].str()));
    }
    return offsets;
  };
  // Killed mid-stream, once a good number of messages were acknowledged: about 1 MB of delivery
  // reports, some 20,000 lines. The file's size is cheap to poll; parsing it at every poll is not
  // (under the sanitizers kcat would finish first).
  auto report_bytes = [&] {
    std::error_code ec;
    const auto n = fs::file_size(reports, ec);
    return ec ? 0 : static_cast<uint64_t>(n);
  };
  for (int i = 0; i < 600 && report_bytes() < 1000000; ++i) std::this_thread::sleep_for(20ms);
  kill9();
  ::kill(kcat, SIGKILL);
  ::waitpid(kcat, nullptr, 0);
  const std::set<int64_t> acked = acknowledged();
  ASSERT_GE(acked.size(), 1000u) << read_file(reports).substr(0, 2000);
  ASSERT_LT(acked.size(), static_cast<size_t>(kCount)) << "the produce ended before the kill";

  ASSERT_NO_FATAL_FAILURE(start());
  ASSERT_NO_FATAL_FAILURE(read_listener());
  // The recovered log: whole batches only, every CRC matching, and at least what was acknowledged.
  const int64_t end = expect_valid_kafka_log(config_.log_dirs[0] / "t-0");
  EXPECT_GT(end, *acked.rbegin());
  const std::vector<Consumed> got = consume("t", 0);
  ASSERT_EQ(got.size(), static_cast<size_t>(end));
  for (int64_t offset : acked) {
    const Consumed& m = got[static_cast<size_t>(offset)];
    ASSERT_EQ(m.offset, offset);
    ASSERT_EQ(m.key, key_of(static_cast<int>(offset)));
    ASSERT_EQ(m.value, value_of(static_cast<int>(offset)));
  }
}

// A batch whose size (Kafka's sizeInBytes: the whole batch with its 12-byte log overhead) is over
// message.max.bytes (default 1048588) is refused for its partition with MESSAGE_TOO_LARGE and
// nothing is written; a batch of exactly that size is taken, as Kafka compares with ">".
TEST_F(KafkaListenerTest, ABatchOverMessageMaxBytesIsRefusedWithNothingWritten) {
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(1)));
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0, 1}}});
  // One record whose value makes the batch exactly `size` bytes.
  auto batch_of = [](size_t size) {
    kafka::Record r;
    r.value = std::string(size - 100, 'x');
    std::string batch = kafka::build_batch(0, 1700000000000, {r});
    r.value->resize(r.value->size() + size - batch.size());
    batch = kafka::build_batch(0, 1700000000000, {r});
    EXPECT_EQ(batch.size(), size);
    return batch;
  };
  kafka::ProduceRequest request;
  request.topics.push_back({"t", {{0, batch_of(1048589)}, {1, batch_of(1048588)}}});
  kafka::Writer body;
  kafka::write_produce_request(body, request, 7);
  KafkaConnection c(port_);
  ASSERT_TRUE(c.send_request(0, 7, 21, 1, body.bytes()));
  std::optional<std::string> reply = c.read_frame();
  ASSERT_TRUE(reply.has_value());
  kafka::Reader in(*reply);
  EXPECT_EQ(kafka::read_response_header(in, 0), 21);
  const kafka::ProduceResponse r = kafka::read_produce_response(in, 7);
  ASSERT_EQ(r.topics.size(), 1u);
  ASSERT_EQ(r.topics[0].partitions.size(), 2u);
  EXPECT_EQ(r.topics[0].partitions[0].error_code, 10);  // MESSAGE_TOO_LARGE
  EXPECT_EQ(r.topics[0].partitions[0].base_offset, -1);
  EXPECT_EQ(r.topics[0].partitions[1].error_code, 0);
  EXPECT_EQ(r.topics[0].partitions[1].base_offset, 0);

  // t-0 holds nothing, in the admin API's sizes and on disk; t-1 holds its batch.
  std::map<std::string, uint64_t> sizes;
  for (const auto& d : log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}))) {
    for (const auto& p : d["partitions"]) sizes[p["partition"]] = p["size"].get<uint64_t>();
  }
  EXPECT_EQ(sizes["t-0"], 0u);
  EXPECT_EQ(sizes["t-1"], 1048588u);
  uint64_t on_disk = 0;
  for (const auto& f : fs::directory_iterator(config_.log_dirs[0] / "t-0")) {
    // The segments; lds.partition beside them is not the log.
    if (f.is_regular_file() && f.path().extension() == ".log") on_disk += f.file_size();
  }
  EXPECT_EQ(on_disk, 0u);
}

// Reads partition `partition` of `topic` from its start to its end with confluent-kafka (assign,
// no group) and checks message i at offset i is key-i, value-i; prints "read N".
constexpr const char* kConfluentReader = R"(import sys
from confluent_kafka import Consumer, KafkaError, TopicPartition, OFFSET_BEGINNING
address, topic, partition = sys.argv[1], sys.argv[2], int(sys.argv[3])
c = Consumer({"bootstrap.servers": address, "group.id": "lds-test", "enable.auto.commit": False,
              "enable.partition.eof": True})
c.assign([TopicPartition(topic, partition, OFFSET_BEGINNING)])
n = 0
while True:
    m = c.poll(30)
    if m is None:
        sys.exit("no message and no end within 30 s after %d" % n)
    if m.error():
        if m.error().code() == KafkaError._PARTITION_EOF:
            break
        sys.exit("error after %d: %s" % (n, m.error()))
    if m.offset() != n or m.key() != b"key-%d" % n or not m.value().startswith(b"value-%d-" % n):
        sys.exit("offset %d holds %r, expected message %d" % (m.offset(), m.key(), n))
    n += 1
c.close()
print("read", n)
)";

// The same with kafka-python, to the log end that end_offsets() gives.
constexpr const char* kKafkaPythonReader = R"(import sys
from kafka import KafkaConsumer, TopicPartition
address, topic, partition = sys.argv[1], sys.argv[2], int(sys.argv[3])
tp = TopicPartition(topic, partition)
c = KafkaConsumer(bootstrap_servers=address, enable_auto_commit=False, consumer_timeout_ms=30000)
c.assign([tp])
c.seek_to_beginning(tp)
end = c.end_offsets([tp])[tp]
n = 0
for m in c:
    if m.offset != n or m.key != b"key-%d" % n or not m.value.startswith(b"value-%d-" % n):
        sys.exit("offset %d holds %r, expected message %d" % (m.offset, m.key, n))
    n += 1
    if n == end:
        break
c.close()
print("read", n, "of", end)
)";

// kafka-python's producer, gzip-compressing messages `first` to `first + count - 1` into one
// partition, with kcat's headers (this broker's tests read them back as kcat -P -H wrote them).
constexpr const char* kKafkaPythonGzipProducer = R"(import sys
from kafka import KafkaProducer
address, topic, partition, first, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
p = KafkaProducer(bootstrap_servers=address, compression_type="gzip", acks="all", linger_ms=100)
for i in range(first, first + count):
    value = ("value-%d-" % i + "v" * (40 + i % 17)).encode()
    p.send(topic, partition=partition, key=b"key-%d" % i, value=value,
           headers=[("trace", b"lds-test"), ("origin", b"kcat")])
p.flush(30)
p.close()
print("sent", count)
)";

// Messages `first` to `first + count - 1` as kcat -P -K: -H trace=lds-test -H origin=kcat sends
// them, as records of one batch.
std::vector<kafka::Record> message_records(int first, int count) {
  std::vector<kafka::Record> records;
  for (int i = 0; i < count; ++i) {
    kafka::Record r;
    r.offset_delta = i;
    r.key = key_of(first + i);
    r.value = value_of(first + i);
    r.headers = {{"trace", "lds-test"}, {"origin", "kcat"}};
    records.push_back(std::move(r));
  }
  return records;
}

// A batch that breaks one of Kafka's LogValidator rules, and the code Kafka answers it with.
struct RefusedBatch {
  const char* what;
  std::string batch;
  int16_t code;
};

// One batch per rule, each with a valid CRC, as a client could send it.
std::vector<RefusedBatch> refused_batches() {
  const std::string plain = kafka::build_batch(0, 1700000000000, test::numbered_records(3));
  std::string area = test::records_area(plain);
  area[4] = 100;  // the first record's key length, zigzag 50: past the record
  std::string no_sequence = test::with_field<int64_t>(plain, test::kProducerIdAt, 5);
  no_sequence = test::with_field<int32_t>(no_sequence, test::kBaseSequenceAt, -1);
  return {
      {"records count != lastOffsetDelta + 1",
       test::with_field<int32_t>(plain, test::kLastOffsetDeltaAt, 1), 87},
      {"lastOffsetDelta 2^31 - 1",
       test::with_field<int32_t>(kafka::build_batch(0, 1700000000000, test::numbered_records(1)),
                                 test::kLastOffsetDeltaAt, INT32_MAX),
       87},
      {"a control batch", test::with_field<int16_t>(plain, test::kAttributesAt, 0x20), 87},
      {"codec 7", test::with_records_area(plain, test::records_area(plain), 7), 76},
      {"the gzip flag on uncompressed records",
       test::with_records_area(plain, test::records_area(plain), 1), 87},
      {"a malformed record under a valid CRC", test::with_records_area(plain, area, 0), 87},
      {"a producer id with baseSequence -1", no_sequence, 87},
  };
}

// Topic t with partitions 0 and 1, written by kcat, by Produce v8 requests with batches built here,
// and by kafka-python; `next_[p]` is the next message of partition p.
//
// librdkafka 2.0 compresses only with zstd here: kcat -z gzip, snappy or lz4 sends uncompressed
// batches ("Broker does not support compression type gzip"), as librdkafka infers those codecs
// from APIs this broker does not advertise (FindCoordinator, key 10, for lz4). So partition 0
// holds kcat's uncompressed and zstd batches, and gzip, snappy (framed and raw) and lz4 batches
// built with the codecs' libraries and sent over the wire; partition 1 holds kafka-python's gzip
// batches, what kafka-python itself can read back (Debian's python3-kafka has no snappy, lz4 or
// zstd module).
class KafkaCodecsTest : public KafkaRecordsTest {
 protected:
  static constexpr int kEach = 40;  // messages per produce

  void start() {
    ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(1)));
    call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0, 1}}});
    connection_ = std::make_unique<KafkaConnection>(port_);
    kafka_python_ = kafka_python_available();
  }

  // kEach messages to `partition` with kcat -z `codec`.
  void kcat(int partition, const std::string& codec) {
    int& next = next_[partition];
    const fs::path input = write_message_range(
        temp_ / ("m" + std::to_string(partition) + "-" + std::to_string(next) + ".txt"), next,
        next + kEach);
    const ProcessResult r =
        run_command("kcat -P -b " + address_ + " -t t -p " + std::to_string(partition) +
                        " -K: -H trace=lds-test -H origin=kcat -X acks=all -z " + codec + " -l " +
                        input.string(),
                    60);
    ASSERT_EQ(r.exit_code, 0) << codec << ": " << r.out;
    next += kEach;
  }

  // One Produce v8 of `batches` (partition, batch) to t; its answer.
  kafka::ProduceResponse produce_v8(const std::vector<std::pair<int32_t, std::string>>& batches) {
    kafka::ProduceRequest request;
    request.topics.push_back({"t", {}});
    for (const auto& [partition, batch] : batches) {
      request.topics[0].partitions.push_back({partition, batch});
    }
    kafka::Writer body;
    kafka::write_produce_request(body, request, 8);
    kafka::ProduceResponse r;
    EXPECT_TRUE(connection_->send_request(0, 8, ++correlation_id_, 1, body.bytes()));
    const std::optional<std::string> reply = connection_->read_frame();
    EXPECT_TRUE(reply.has_value());
    if (!reply) return r;
    kafka::Reader in(*reply);
    EXPECT_EQ(kafka::read_response_header(in, 0), correlation_id_);
    r = kafka::read_produce_response(in, 8);
    EXPECT_EQ(in.remaining(), 0u);
    return r;
  }

  // kEach messages to partition 0 in one batch compressed with the codec's library, as the Java
  // client would send it: gzip, snappy (framed), snappy-raw or lz4.
  void library_batch(const std::string& codec) {
    int& next = next_[0];
    const std::vector<kafka::Record> records = message_records(next, kEach);
    std::string batch;
    if (codec == "snappy-raw") {
      const std::string plain = kafka::build_batch(0, 1700000000000, records);
      batch =
          test::with_records_area(plain, kafka::compress_snappy_block(test::records_area(plain)),
                                  static_cast<int>(kafka::Codec::kSnappy));
    } else {
      const kafka::Codec id = codec == "gzip"  ? kafka::Codec::kGzip
                              : codec == "lz4" ? kafka::Codec::kLz4
                                               : kafka::Codec::kSnappy;
      batch = test::compressed_batch(id, records);
    }
    const kafka::ProduceResponse r = produce_v8({{0, batch}});
    ASSERT_EQ(r.topics.at(0).partitions.at(0).error_code, 0)
        << codec << ": " << r.topics[0].partitions[0].error_message.value_or("");
    ASSERT_EQ(r.topics[0].partitions[0].base_offset, next) << codec;
    next += kEach;
  }

  // kEach messages to partition 1 from kafka-python, gzip-compressed; from kcat without it.
  void kafka_python_gzip() {
    if (!kafka_python_) {
      ASSERT_NO_FATAL_FAILURE(kcat(1, "none"));
      return;
    }
    const fs::path producer = temp_ / "kafka_python_gzip_producer.py";
    std::ofstream(producer) << kKafkaPythonGzipProducer;
    const ProcessResult r =
        run_command("/usr/bin/python3 " + producer.string() + " " + address_ + " t 1 " +
                        std::to_string(next_[1]) + " " + std::to_string(kEach),
                    90);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    next_[1] += kEach;
  }

  // The compression codecs of the batches both partitions' segments hold.
  std::set<int> codecs_stored() {
    std::set<int> codecs;
    for (const std::string& segment : {std::string("t-0"), std::string("t-1")}) {
      for (const fs::path& file : segments_of(config_.log_dirs[0] / segment)) {
        const std::string bytes = read_file(file);
        for (std::string_view batch : kafka::split_batches(bytes)) {
          codecs.insert(kafka::read_batch_header(batch).compression());
        }
      }
    }
    return codecs;
  }

  // Each partition's size as DescribeLogDirs reports it.
  std::map<std::string, uint64_t> sizes() {
    std::map<std::string, uint64_t> out;
    for (const auto& d : log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}))) {
      for (const auto& p : d["partitions"]) out[p["partition"]] = p["size"].get<uint64_t>();
    }
    return out;
  }

  // `b`, sent to both partitions in one request: each answers Kafka's code and a message, and
  // a record that does not frame is named.
  void expect_refused(const RefusedBatch& b) {
    const kafka::ProduceResponse r = produce_v8({{0, b.batch}, {1, b.batch}});
    ASSERT_EQ(r.topics.at(0).partitions.size(), 2u);
    for (const auto& p : r.topics[0].partitions) {
      EXPECT_EQ(p.error_code, b.code);
      EXPECT_EQ(p.base_offset, -1);
      EXPECT_TRUE(p.error_message.has_value());
    }
    const auto& named = r.topics[0].partitions[0].record_errors;
    if (std::string(b.what) == "a malformed record under a valid CRC") {
      EXPECT_EQ(named.size(), 1u);
      EXPECT_EQ(named.empty() ? -1 : named[0].batch_index, 0);
      EXPECT_EQ(named.empty() ? std::nullopt : named[0].message,
                "Record 0 does not frame as a Kafka record: its key of 50 bytes runs past it in "
                "topic partition t-0");
    } else {
      EXPECT_TRUE(named.empty());
    }
  }

  // kcat reads both partitions to their end, and so do confluent-kafka and kafka-python (partition
  // 1) when installed.
  void expect_read_by_every_client() {
    expect_all_messages(consume("t", 0), next_[0]);
    expect_all_messages(consume("t", 1), next_[1]);
    if (run_command("/usr/bin/python3 -c 'import confluent_kafka'").exit_code == 0) {
      const fs::path reader = temp_ / "confluent_reader.py";
      std::ofstream(reader) << kConfluentReader;
      for (int partition : {0, 1}) {
        const ProcessResult r = run_command("/usr/bin/python3 " + reader.string() + " " + address_ +
                                                " t " + std::to_string(partition),
                                            90);
        EXPECT_EQ(r.exit_code, 0) << r.out;
        EXPECT_NE(r.out.find("read " + std::to_string(next_[partition])), std::string::npos)
            << r.out;
      }
    }
    if (kafka_python_) {
      const fs::path reader = temp_ / "kafka_python_reader.py";
      std::ofstream(reader) << kKafkaPythonReader;
      const ProcessResult r =
          run_command("/usr/bin/python3 " + reader.string() + " " + address_ + " t 1", 90);
      EXPECT_EQ(r.exit_code, 0) << r.out;
      const std::string n = std::to_string(next_[1]);
      EXPECT_NE(r.out.find("read " + n + " of " + n), std::string::npos) << r.out;
    }
  }

  int next_[2] = {0, 0};

 private:
  std::unique_ptr<KafkaConnection> connection_;
  int32_t correlation_id_ = 100;
  bool kafka_python_ = false;
};

// Batches that Kafka's LogValidator refuses each get Kafka's error code and a message, nothing of
// them reaches the log, and real clients read the partitions to their end afterwards, compressed
// batches of every codec before and after them included.
TEST_F(KafkaCodecsTest, BatchesKafkaRefusesGetItsCodesAndThePartitionStaysReadable) {
  ASSERT_NO_FATAL_FAILURE(start());
  ASSERT_NO_FATAL_FAILURE(kcat(0, "none"));
  ASSERT_NO_FATAL_FAILURE(kcat(0, "zstd"));
  for (const char* codec : {"gzip", "snappy", "snappy-raw", "lz4"}) {
    ASSERT_NO_FATAL_FAILURE(library_batch(codec));
  }
  ASSERT_NO_FATAL_FAILURE(kafka_python_gzip());
  EXPECT_EQ(codecs_stored(), (std::set<int>{0, 1, 2, 3, 4}));

  const std::map<std::string, uint64_t> sizes_before = sizes();
  for (const RefusedBatch& b : refused_batches()) {
    SCOPED_TRACE(b.what);
    ASSERT_NO_FATAL_FAILURE(expect_refused(b));
  }
  // Nothing of them was written.
  EXPECT_EQ(sizes(), sizes_before);
  EXPECT_EQ(expect_valid_kafka_log(config_.log_dirs[0] / "t-0"), next_[0]);
  EXPECT_EQ(expect_valid_kafka_log(config_.log_dirs[0] / "t-1"), next_[1]);

  // The partitions go on: more batches after them, then every client reads them to their end.
  ASSERT_NO_FATAL_FAILURE(kcat(0, "zstd"));
  ASSERT_NO_FATAL_FAILURE(library_batch("lz4"));
  ASSERT_NO_FATAL_FAILURE(kcat(0, "none"));
  ASSERT_NO_FATAL_FAILURE(kcat(1, "none"));
  ASSERT_NO_FATAL_FAILURE(kafka_python_gzip());
  expect_read_by_every_client();
}

}  // namespace
}  // namespace lds::integration
