// compression.h: Kafka's compression codecs for the records of a v2 record batch (attributes bits
// 0-2), each read and written with its own library: zlib (gzip), snappy, lz4 (the LZ4 frame
// format) and zstd, as Debian ships them. Nothing here implements a codec.
//
// What is read is what Kafka's clients write and what every client can read back:
//   gzip    one gzip member (RFC 1952), its CRC32 and length checked, nothing after it;
//   snappy  Kafka's snappy framing (xerial's "\x82SNAPPY\0" header, then big-endian length-prefixed
//           snappy blocks), as the Java client writes it, or one raw snappy block, as librdkafka
//           writes it (Kafka's SnappyInputStream reads both);
//   lz4     one LZ4 frame, with the frame options Kafka's Lz4BlockInputStream reads: version 1,
//           independent blocks, no dictionary id, the reserved bits clear; nothing after it;
//   zstd    one ZStandard frame, nothing after it.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace lds::kafka {

// Kafka's codec numbers (CompressionType.id). 5 to 7 fit the attribute bits and name no codec.
enum class Codec : int { kNone = 0, kGzip = 1, kSnappy = 2, kLz4 = 3, kZstd = 4 };
inline constexpr int kLastCodec = 4;

// "none", "gzip", "snappy", "lz4", "zstd" (Kafka's CompressionType names); "codec <n>" for a
// number that names none.
std::string codec_name(int codec);

// Compressed bytes that do not decompress: the message says why ("gzip: invalid block type").
class DecompressError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The decompressed bytes of a batch's records, a piece at a time, so that memory stays bounded by
// the codec's block or window size whatever the records inflate to. Owns no input: the compressed
// bytes must outlive it.
class Decompressor {
 public:
  virtual ~Decompressor() = default;
  // The next piece of the decompressed bytes, valid until the next call. Empty only at the end,
  // once the whole input has been read and checked (checksums, nothing after the stream). Throws
  // DecompressError.
  virtual std::string_view next() = 0;
};

// A reader of `compressed` as `codec` writes it; kNone hands the bytes back as they are. Throws
// DecompressError at once when the stream's header is wrong.
std::unique_ptr<Decompressor> open_decompressor(Codec codec, std::string_view compressed);

// `bytes` compressed as Kafka's Java producer writes them: one gzip member, Kafka's snappy framing
// (32 KiB blocks), one LZ4 frame of independent 64 KiB blocks, one ZStandard frame (level 3).
// kNone returns `bytes`. For tests and tools that build batches a client could have sent.
std::string compress(Codec codec, std::string_view bytes);
// `bytes` as one raw snappy block, the snappy librdkafka writes.
std::string compress_snappy_block(std::string_view bytes);

}  // namespace lds::kafka
