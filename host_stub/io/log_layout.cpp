// log_layout.cpp: Kafka's on-disk names, topic rule, ids and the verifiable payload pattern.
#include "io/log_layout.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <random>

#include "model/uuid.h"
#include "util/splitmix.h"

namespace lds::layout {
namespace {

uint64_t seed_of(std::string_view topic, int32_t partition) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : topic) h = (h ^ c) * 1099511628211ull;
  return splitmix64(h ^ static_cast<uint64_t>(static_cast<uint32_t>(partition)));
}

std::mt19937_64& rng() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return engine;
}

bool parse_partition_name(std::string_view name, Entry* out) {
  auto dash = name.rfind('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == name.size()) return false;
  std::string_view number = name.substr(dash + 1);
  int32_t partition = -1;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), partition);
  if (ec != std::errc() || end != number.data() + number.size() || partition < 0) return false;
  if (number.size() > 1 && number[0] == '0') return false;
  std::string_view topic = name.substr(0, dash);
  if (!topic_name_problem(topic).empty()) return false;
  out->topic = std::string(topic);
  out->partition = partition;
  return true;
}

}  // namespace

namespace {

// The name's length as Java counts it (UTF-16 code units) for UTF-8 text: one per character, two
// for a character outside the Basic Multilingual Plane.
size_t java_length(std::string_view text) {
  size_t units = 0;
  for (char ch : text) {
    const auto u = static_cast<unsigned char>(ch);
    if ((u & 0xC0) != 0x80) units += u >= 0xF0 ? 2 : 1;
  }
  return units;
}

}  // namespace

// Kafka's Topic.validate texts (3.4 and later), whole names included.
bool topic_names_collide(std::string_view a, std::string_view b) {
  if (a == b || a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] == '.' ? '_' : a[i];
    const char y = b[i] == '.' ? '_' : b[i];
    if (x != y) return false;
  }
  return true;
}

std::string topic_name_problem(std::string_view topic) {
  const std::string prefix = "Topic name is invalid: ";
  if (topic.empty()) return prefix + "the empty string is not allowed";
  if (topic == "." || topic == "..") return prefix + "'" + std::string(topic) + "' is not allowed";
  if (java_length(topic) > 249) {
    return prefix + "the length of '" + std::string(topic) +
           "' is longer than the max allowed length 249";
  }
  for (char c : topic) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) {
      return prefix + "'" + std::string(topic) +
             "' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'";
    }
  }
  return {};
}

std::string partition_name_problem(std::string_view name) {
  auto dash = name.rfind('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == name.size()) {
    return "the name is not <topic>-<partition>";
  }
  std::string_view number = name.substr(dash + 1);
  for (char c : number) {
    if (c < '0' || c > '9') {
      // Appended: GCC 12 at -O3 reports a false -Wrestrict on `"\"" + std::string(number)`.
      return std::string(1, '"').append(number).append(
          "\" after the last '-' is not a partition number");
    }
  }
  if (number.size() > 1 && number[0] == '0') {
    return "partition number \"" + std::string(number) + "\" has a leading zero";
  }
  Entry e;
  if (!parse_partition_name(name, &e)) {
    std::string why = topic_name_problem(name.substr(0, dash));
    return why.empty() ? "partition number \"" + std::string(number) + "\" is out of range" : why;
  }
  return {};
}

std::string partition_dir(std::string_view topic, int32_t partition) {
  return std::string(topic) + "-" + std::to_string(partition);
}

namespace {

std::string capped_name(std::string_view topic, int32_t partition, std::string_view id,
                        std::string_view suffix) {
  // Appended: GCC 12 at -O3 reports a false -Wrestrict on `"-" + std::to_string(partition)`.
  std::string tail = "-";
  tail.append(std::to_string(partition)).append(1, '.').append(id).append(suffix);
  const size_t room = tail.size() < kMaxEntryName ? kMaxEntryName - tail.size() : 0;
  return std::string(topic.substr(0, std::min(topic.size(), room))) + tail;
}

}  // namespace

std::string future_dir(std::string_view topic, int32_t partition, std::string_view id) {
  return capped_name(topic, partition, id, "-future");
}

std::string delete_dir(std::string_view topic, int32_t partition, std::string_view id) {
  return capped_name(topic, partition, id, "-delete");
}

bool may_be_capped(std::string_view name) { return name.size() >= kMaxEntryName; }

std::string partition_metadata_text(uint64_t expected_bytes, std::string_view replica_id) {
  std::string text = "expected.bytes=" + std::to_string(expected_bytes) + "\n";
  if (!replica_id.empty()) text += "replica.id=" + std::string(replica_id) + "\n";
  return text;
}

namespace {

// A replica id as random_directory_id() writes one: URL-safe base64 characters, at most 64.
bool valid_replica_id(std::string_view id) {
  return !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_';
  });
}

// Reads one line of lds.partition into `out`; the clause saying why it cannot be, or "".
std::string read_metadata_line(std::string_view l, int line, bool& found_bytes, bool& found_id,
                               PartitionMetadata& out) {
  constexpr std::string_view kBytes = "expected.bytes=";
  constexpr std::string_view kId = "replica.id=";
  const std::string at = "line " + std::to_string(line) + " is not ";
  if (l.starts_with(kId)) {
    const std::string_view id = l.substr(kId.size());
    if (found_id || !valid_replica_id(id)) {
      return at + (found_id ? "the only " : "") + "replica.id=<id>";
    }
    out.replica_id = std::string(id);
    found_id = true;
    return {};
  }
  uint64_t value = 0;
  const std::string_view number = l.substr(std::min(l.size(), kBytes.size()));
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (!l.starts_with(kBytes) || number.empty() || ec != std::errc() ||
      end != number.data() + number.size() || found_bytes) {
    return at + (found_bytes ? "the only " : "") + "expected.bytes=<bytes>";
  }
  out.expected_bytes = value;
  found_bytes = true;
  return {};
}

}  // namespace

PartitionMetadata parse_partition_metadata(std::string_view text) {
  PartitionMetadata out;
  size_t line_start = 0;
  bool found_bytes = false;
  bool found_id = false;
  for (int line = 1; line_start < text.size(); ++line) {
    size_t end = text.find('\n', line_start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view l = text.substr(line_start, end - line_start);
    line_start = end + 1;
    if (l.empty() || l.front() == '#') continue;
    out.problem = read_metadata_line(l, line, found_bytes, found_id, out);
    if (!out.problem.empty()) break;
  }
  if (out.problem.empty() && !found_bytes) out.problem = "it has no expected.bytes=<bytes> line";
  if (!out.problem.empty()) {
    out.expected_bytes = 0;
    out.replica_id.clear();
  }
  return out;
}

std::string segment_file(uint64_t base_offset) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%020llu", static_cast<unsigned long long>(base_offset));
  return std::string(buf) + std::string(kSegmentSuffix);
}

Entry parse_entry(std::string_view name) {
  Entry e;
  for (auto [suffix, kind] : {std::pair{std::string_view("-future"), EntryKind::kFuture},
                              std::pair{std::string_view("-delete"), EntryKind::kDelete}}) {
    if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix) {
      std::string_view base = name.substr(0, name.size() - suffix.size());
      auto dot = base.rfind('.');
      if (dot == std::string_view::npos) return e;
      if (parse_partition_name(base.substr(0, dot), &e)) e.kind = kind;
      return e;
    }
  }
  if (parse_partition_name(name, &e)) e.kind = EntryKind::kPartition;
  return e;
}

bool parse_segment_file(std::string_view name, uint64_t* base_offset) {
  if (name.size() != 20 + kSegmentSuffix.size() || name.substr(20) != kSegmentSuffix) return false;
  auto [end, ec] = std::from_chars(name.data(), name.data() + 20, *base_offset);
  return ec == std::errc() && end == name.data() + 20;
}

std::string random_hex_id() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(32, '0');
  uint64_t a = rng()(), b = rng()();
  for (size_t i = 0; i < 16; ++i) {
    id[i] = kHex[(a >> (4 * i)) & 0xF];
    id[16 + i] = kHex[(b >> (4 * i)) & 0xF];
  }
  return id;
}

std::string random_directory_id() {
  for (;;) {
    std::array<unsigned char, 16> bytes{};
    for (size_t i = 0; i < 16; i += 8) {
      uint64_t r = rng()();
      for (size_t j = 0; j < 8; ++j) bytes[i + j] = static_cast<unsigned char>(r >> (8 * j));
    }
    bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0f) | 0x40);  // version 4
    bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3f) | 0x80);  // IETF variant
    std::string id = uuid_text(bytes);
    if (id.front() != '-') return id;
  }
}

void fill_payload(std::string_view topic, int32_t partition, uint64_t offset, std::span<char> out) {
  const uint64_t seed = seed_of(topic, partition);
  size_t i = 0;
  while (i < out.size()) {
    const uint64_t pos = offset + i;
    const uint64_t word = splitmix64(seed ^ (pos >> 3));
    for (uint64_t b = pos & 7; b < 8 && i < out.size(); ++b, ++i) {
      out[i] = static_cast<char>(static_cast<unsigned char>(word >> (8 * b)));
    }
  }
}

}  // namespace lds::layout
