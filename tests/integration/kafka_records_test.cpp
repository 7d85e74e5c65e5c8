// kafka_records_test.cpp: records through the Kafka listener of a running lds-host, with kcat:
// 10,000 keyed messages with headers produced and consumed back in order, the segments valid
// Kafka logs batch by batch, the same messages read again after a move to another log dir, and a
// kill -9 during a produce losing no acknowledged message and leaving whole batches only; and a
// batch one byte over message.max.bytes refused with nothing written.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/record_batch.h"
#include "kafka/produce.h"
#include "kafka_listener_fixture.h"

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
    if (f.is_regular_file()) on_disk += f.file_size();
  }
  EXPECT_EQ(on_disk, 0u);
}

}  // namespace
}  // namespace lds::integration
