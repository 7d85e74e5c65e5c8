// record_batch.cpp: reading, checking and building v2 record batches.
#include "model/record_batch.h"

#include <algorithm>
#include <boost/crc.hpp>
#include <cstring>
#include <stdexcept>

#include "model/wire.h"

namespace lds::kafka {

namespace {

uint32_t crc32c_portable(std::string_view bytes) {
  boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true> crc;
  crc.process_bytes(bytes.data(), bytes.size());
  return crc.checksum();
}

#if defined(__x86_64__)
// SSE 4.2's crc32 instruction computes CRC32C itself, eight bytes a step: every batch a broker
// takes or recovers is checked, so this is on the produce path.
__attribute__((target("sse4.2"))) uint32_t crc32c_sse42(std::string_view bytes) {
  uint64_t crc = 0xFFFFFFFF;
  const char* p = bytes.data();
  size_t n = bytes.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    crc = __builtin_ia32_crc32di(crc, word);
  }
  auto c = static_cast<uint32_t>(crc);
  for (; n > 0; ++p, --n) c = __builtin_ia32_crc32qi(c, static_cast<unsigned char>(*p));
  return c ^ 0xFFFFFFFF;
}
#endif

}  // namespace

uint32_t crc32c(std::string_view bytes) {
#if defined(__x86_64__)
  static const bool kHardware = __builtin_cpu_supports("sse4.2");
  if (kHardware) return crc32c_sse42(bytes);
#endif
  return crc32c_portable(bytes);
}

RecordBatchHeader read_batch_header_fields(std::string_view bytes) {
  if (bytes.size() < kBatchHeaderBytes) {
    throw ParseError("Truncated record batch: " + std::to_string(bytes.size()) +
                     " bytes, a batch header takes " + std::to_string(kBatchHeaderBytes) + ".");
  }
  Reader in(bytes);
  RecordBatchHeader h;
  h.base_offset = in.int64();
  h.batch_length = in.int32();
  h.partition_leader_epoch = in.int32();
  h.magic = in.int8();
  h.crc = in.uint32();
  h.attributes = in.int16();
  h.last_offset_delta = in.int32();
  h.base_timestamp = in.int64();
  h.max_timestamp = in.int64();
  h.producer_id = in.int64();
  h.producer_epoch = in.int16();
  h.base_sequence = in.int32();
  h.record_count = in.int32();
  if (h.magic != kMagicV2) {
    throw ParseError("Record batch at offset " + std::to_string(h.base_offset) + " has magic " +
                     std::to_string(h.magic) + "; only magic 2 is supported.");
  }
  if (h.batch_length < static_cast<int32_t>(kBatchHeaderBytes - kBatchLogOverhead)) {
    throw ParseError("Record batch at offset " + std::to_string(h.base_offset) +
                     " has batchLength " + std::to_string(h.batch_length) +
                     ", shorter than its header.");
  }
  if (h.record_count < 0) {
    throw ParseError("Record batch at offset " + std::to_string(h.base_offset) +
                     " has a negative record count.");
  }
  return h;
}

RecordBatchHeader read_batch_header(std::string_view bytes) {
  const RecordBatchHeader h = read_batch_header_fields(bytes);
  if (h.size_in_bytes() > bytes.size()) {
    throw ParseError("Record batch at offset " + std::to_string(h.base_offset) +
                     " has batchLength " + std::to_string(h.batch_length) + " with " +
                     std::to_string(bytes.size() - kBatchLogOverhead) + " bytes after it.");
  }
  return h;
}

uint32_t compute_batch_crc(std::string_view batch) {
  Reader in(batch);
  in.raw(kBatchLogOverhead - 4);
  const auto length = static_cast<size_t>(in.int32());
  return crc32c(
      batch.substr(kBatchCrcCoverageStart, length + kBatchLogOverhead - kBatchCrcCoverageStart));
}

bool batch_crc_matches(std::string_view batch) {
  const RecordBatchHeader h = read_batch_header(batch);
  return compute_batch_crc(batch) == h.crc;
}

std::vector<std::string_view> split_batches(std::string_view bytes) {
  std::vector<std::string_view> batches;
  while (!bytes.empty()) {
    const RecordBatchHeader h = read_batch_header(bytes);
    batches.push_back(bytes.substr(0, h.size_in_bytes()));
    bytes.remove_prefix(h.size_in_bytes());
  }
  return batches;
}

void set_base_offset(std::string& batch, size_t batch_start, int64_t base_offset) {
  if (batch.size() < batch_start + 8) throw std::out_of_range("set_base_offset past the end");
  const auto u = static_cast<uint64_t>(base_offset);
  for (size_t i = 0; i < 8; ++i) {
    batch[batch_start + i] = static_cast<char>((u >> (8 * (7 - i))) & 0xFF);
  }
}

namespace {

std::optional<std::string> varint_sized(Reader& in, const char* what) {
  const int32_t length = in.varint();
  if (length < -1) {
    throw ParseError(std::string("Malformed record: ") + what + " length " +
                     std::to_string(length) + ".");
  }
  if (length == -1) return std::nullopt;
  return std::string(in.raw(static_cast<size_t>(length)));
}

Record read_record(Reader& in) {
  const int32_t length = in.varint();
  if (length < 0 || static_cast<size_t>(length) > in.remaining()) {
    throw ParseError("Malformed record: length " + std::to_string(length) + " with " +
                     std::to_string(in.remaining()) + " bytes left in the batch.");
  }
  Reader body(in.raw(static_cast<size_t>(length)));
  Record r;
  r.attributes = body.int8();
  r.timestamp_delta = body.varlong();
  r.offset_delta = body.varint();
  r.key = varint_sized(body, "key");
  r.value = varint_sized(body, "value");
  const int32_t headers = body.varint();
  if (headers < 0 || static_cast<size_t>(headers) > body.remaining()) {
    throw ParseError("Malformed record: " + std::to_string(headers) + " headers.");
  }
  for (int32_t i = 0; i < headers; ++i) {
    RecordHeader h;
    std::optional<std::string> key = varint_sized(body, "header key");
    if (!key) throw ParseError("Malformed record: a header key is null.");
    h.key = std::move(*key);
    h.value = varint_sized(body, "header value");
    r.headers.push_back(std::move(h));
  }
  if (body.remaining() != 0) {
    throw ParseError("Malformed record: " + std::to_string(body.remaining()) +
                     " bytes left over after its headers.");
  }
  return r;
}

void write_varint_sized(Writer& out, const std::optional<std::string>& s) {
  if (!s) {
    out.varint(-1);
    return;
  }
  out.varint(static_cast<int32_t>(s->size()));
  out.raw(*s);
}

void write_record(Writer& out, const Record& r) {
  Writer body;
  body.int8(r.attributes);
  body.varlong(r.timestamp_delta);
  body.varint(r.offset_delta);
  write_varint_sized(body, r.key);
  write_varint_sized(body, r.value);
  body.varint(static_cast<int32_t>(r.headers.size()));
  for (const auto& h : r.headers) {
    write_varint_sized(body, h.key);
    write_varint_sized(body, h.value);
  }
  out.varint(static_cast<int32_t>(body.size()));
  out.raw(body.bytes());
}

// Bytes a record takes, length prefix included, with no headers, a zero timestamp delta, and a key
// of `key_length` bytes (-1: null) and a value of `value_length` bytes.
size_t record_size(int32_t offset_delta, int32_t key_length, int32_t value_length) {
  const size_t body = 1 + 1 + varint_size(offset_delta) + varint_size(key_length) +
                      static_cast<size_t>(std::max(key_length, 0)) + varint_size(value_length) +
                      static_cast<size_t>(value_length) + 1;
  return varint_size(static_cast<int32_t>(body)) + body;
}

// A key length and value length that make a record of exactly `size` bytes, if any. Varint
// lengths grow at fixed boundaries, so a few sizes cannot be hit with a null key; a short key
// shifts the boundaries.
std::optional<std::pair<int32_t, int32_t>> fit_record(size_t size, int32_t offset_delta) {
  for (int32_t key_length : {-1, 1, 2, 3}) {
    const int64_t estimate = static_cast<int64_t>(size) - 8 - std::max(key_length, 0);
    for (int64_t v = std::max<int64_t>(0, estimate - 8); v <= estimate + 4; ++v) {
      if (v < 0) continue;
      if (record_size(offset_delta, key_length, static_cast<int32_t>(v)) == size) {
        return std::make_pair(key_length, static_cast<int32_t>(v));
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<Record> read_records(std::string_view batch) {
  const RecordBatchHeader h = read_batch_header(batch);
  if (h.compression() != 0) {
    throw ParseError("Record batch at offset " + std::to_string(h.base_offset) +
                     " is compressed (codec " + std::to_string(h.compression()) +
                     "); only uncompressed records are read.");
  }
  Reader in(batch.substr(kBatchHeaderBytes, h.size_in_bytes() - kBatchHeaderBytes));
  std::vector<Record> records;
  if (static_cast<size_t>(h.record_count) > in.remaining()) {
    throw ParseError("Record batch at offset " + std::to_string(h.base_offset) + " claims " +
                     std::to_string(h.record_count) + " records in " +
                     std::to_string(in.remaining()) + " bytes.");
  }
  records.reserve(static_cast<size_t>(h.record_count));
  for (int32_t i = 0; i < h.record_count; ++i) records.push_back(read_record(in));
  if (in.remaining() != 0) {
    throw ParseError("Record batch at offset " + std::to_string(h.base_offset) + " has " +
                     std::to_string(in.remaining()) + " bytes after its " +
                     std::to_string(h.record_count) + " records.");
  }
  return records;
}

std::string build_batch(int64_t base_offset, int64_t base_timestamp,
                        const std::vector<Record>& records) {
  Writer out;
  int32_t last_offset_delta = 0;
  int64_t max_timestamp = base_timestamp;
  for (const auto& r : records) {
    last_offset_delta = std::max(last_offset_delta, r.offset_delta);
    max_timestamp = std::max(max_timestamp, base_timestamp + r.timestamp_delta);
  }
  out.int64(base_offset);
  out.int32(0);   // batchLength, patched below
  out.int32(-1);  // partitionLeaderEpoch
  out.int8(kMagicV2);
  out.uint32(0);  // crc, patched below
  out.int16(0);   // attributes: no compression, CreateTime, not transactional
  out.int32(last_offset_delta);
  out.int64(base_timestamp);
  out.int64(max_timestamp);
  out.int64(-1);  // producerId
  out.int16(-1);  // producerEpoch
  out.int32(-1);  // baseSequence
  out.int32(static_cast<int32_t>(records.size()));
  for (const auto& r : records) write_record(out, r);
  out.patch_int32(8, static_cast<int32_t>(out.size() - kBatchLogOverhead));
  std::string bytes = out.take();
  Writer crc;
  crc.uint32(crc32c(std::string_view(bytes).substr(kBatchCrcCoverageStart)));
  std::copy(crc.bytes().begin(), crc.bytes().end(),
            bytes.begin() + static_cast<std::ptrdiff_t>(kBatchCrcOffset));
  return bytes;
}

FillerBatches build_filler_batches(uint64_t total_bytes, int64_t base_offset, int64_t timestamp,
                                   const FillValue& fill_value) {
  if (total_bytes < kMinBatchBytes) {
    throw std::invalid_argument("Filler records need at least " + std::to_string(kMinBatchBytes) +
                                " bytes, not " + std::to_string(total_bytes) + ".");
  }
  FillerBatches result;
  uint64_t left = total_bytes;
  int64_t offset = base_offset;
  auto make_record = [&](int32_t offset_delta, int32_t key_length, int32_t value_length) {
    Record r;
    r.offset_delta = offset_delta;
    if (key_length >= 0) r.key = std::string(static_cast<size_t>(key_length), 'k');
    r.value = std::string(static_cast<size_t>(value_length), '\0');
    if (fill_value) fill_value(offset + offset_delta, r.value->data(), r.value->size());
    return r;
  };
  while (left > 0) {
    uint64_t batch = std::min<uint64_t>(left, kFillerBatchMaxBytes);
    // Never leave a remainder too small for a batch of its own.
    if (left - batch > 0 && left - batch < kMinBatchBytes) batch = left - kMinBatchBytes;
    const size_t records_bytes = static_cast<size_t>(batch) - kBatchHeaderBytes;
    std::vector<Record> records;
    if (auto one = fit_record(records_bytes, 0)) {
      records.push_back(make_record(0, one->first, one->second));
    } else {
      // The sizes a single record cannot take lie at varint boundaries; split off the smallest
      // record and fit the rest, whose boundaries then fall elsewhere.
      const size_t first = record_size(0, -1, 0);
      auto rest = fit_record(records_bytes - first, 1);
      if (!rest) {
        throw std::logic_error("No filler record fits " + std::to_string(records_bytes) +
                               " bytes.");
      }
      records.push_back(make_record(0, -1, 0));
      records.push_back(make_record(1, rest->first, rest->second));
    }
    result.bytes += build_batch(offset, timestamp, records);
    offset += static_cast<int64_t>(records.size());
    left -= batch;
  }
  result.records = offset - base_offset;
  return result;
}

}  // namespace lds::kafka
