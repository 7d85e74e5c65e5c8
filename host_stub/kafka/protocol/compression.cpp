// compression.cpp: Kafka's codecs through zlib, snappy, lz4frame and zstd.
#define ZLIB_CONST
#include "kafka/protocol/compression.h"

#include <lz4frame.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <utility>
#include <vector>

namespace lds::kafka {
namespace {

// How much decompressed output one step hands back: enough that the per-call costs vanish, small
// enough to stay in the cache.
constexpr size_t kPieceBytes = size_t{64} * 1024;

[[noreturn]] void fail(const std::string& codec, const std::string& why) {
  throw DecompressError(codec + ": " + why);
}

std::string bytes_text(size_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

uint32_t big_endian32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | u[3];
}

uint32_t little_endian32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[3]} << 24) | (uint32_t{u[2]} << 16) | (uint32_t{u[1]} << 8) | u[0];
}

void append_big_endian32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xFF));
}

class Uncompressed final : public Decompressor {
 public:
  explicit Uncompressed(std::string_view bytes) : bytes_(bytes) {}
  std::string_view next() override { return std::exchange(bytes_, std::string_view()); }

 private:
  std::string_view bytes_;
};

// gzip: zlib's inflate with a gzip wrapper only (windowBits 16 + 15), which checks the member's
// CRC32 and length.
class Gzip final : public Decompressor {
 public:
  explicit Gzip(std::string_view in) {
    if (in.size() > UINT_MAX) fail("gzip", "more input than zlib takes at once");
    if (inflateInit2(&z_, 16 + MAX_WBITS) != Z_OK) fail("gzip", "zlib cannot start inflating");
    z_.next_in = reinterpret_cast<const Bytef*>(in.data());
    z_.avail_in = static_cast<uInt>(in.size());
  }
  ~Gzip() override { inflateEnd(&z_); }
  Gzip(const Gzip&) = delete;
  Gzip& operator=(const Gzip&) = delete;

  std::string_view next() override {
    if (ended_) return {};
    for (;;) {
      z_.next_out = reinterpret_cast<Bytef*>(out_.data());
      z_.avail_out = static_cast<uInt>(out_.size());
      const uInt before_in = z_.avail_in;
      const int rc = inflate(&z_, Z_NO_FLUSH);
      const size_t produced = out_.size() - z_.avail_out;
      if (rc == Z_STREAM_END) {
        ended_ = true;
        if (z_.avail_in != 0) fail("gzip", bytes_text(z_.avail_in) + " follow the gzip stream");
        return {out_.data(), produced};
      }
      if (rc == Z_OK && produced > 0) return {out_.data(), produced};
      if (rc == Z_OK && z_.avail_in < before_in) continue;  // a header read, no output yet
      if (rc == Z_BUF_ERROR || rc == Z_OK) fail("gzip", "the stream ends early");
      fail("gzip", z_.msg != nullptr ? z_.msg : "inflate error " + std::to_string(rc));
    }
  }

 private:
  z_stream z_{};
  std::vector<char> out_ = std::vector<char>(kPieceBytes);
  bool ended_ = false;
};

// xerial's header: magic, then the format version and the oldest compatible version (both 1).
constexpr std::string_view kXerialMagic("\x82SNAPPY\0", 8);
constexpr size_t kXerialHeaderBytes = 16;
constexpr size_t kXerialBlockBytes = size_t{32} * 1024;

// Snappy's densest tag (a copy with a two-byte offset) writes 64 bytes from 3: no valid block
// inflates more, so a block that claims more is refused before its output is allocated.
constexpr size_t kSnappyMaxExpansion = 22;

// One snappy block (RFC-less "raw" format), into `out`.
void uncompress_snappy_block(std::string_view block, std::vector<char>& out) {
  size_t length = 0;
  if (!snappy::GetUncompressedLength(block.data(), block.size(), &length)) {
    fail("snappy", "a block's length header is malformed");
  }
  if (length > kSnappyMaxExpansion * block.size() + 64) {
    fail("snappy", "a block of " + bytes_text(block.size()) + " claims " + bytes_text(length) +
                       " uncompressed");
  }
  out.resize(length);
  if (!snappy::RawUncompress(block.data(), block.size(), out.data())) {
    fail("snappy", "a block is corrupt");
  }
}

// Kafka's snappy: xerial framing when the header is there, else the whole input is one raw block.
class Snappy final : public Decompressor {
 public:
  explicit Snappy(std::string_view in) : in_(in) {
    if (in_.size() >= kXerialHeaderBytes && in_.substr(0, kXerialMagic.size()) == kXerialMagic) {
      framed_ = true;
      in_.remove_prefix(kXerialHeaderBytes);
    }
  }

  std::string_view next() override {
    if (!framed_) {
      if (raw_read_) return {};
      raw_read_ = true;
      uncompress_snappy_block(in_, out_);
      return {out_.data(), out_.size()};
    }
    for (;;) {
      if (in_.empty()) return {};
      if (in_.size() < 4) fail("snappy", "a block length is cut short");
      const uint32_t length = big_endian32(in_.data());
      in_.remove_prefix(4);
      if (length > in_.size()) {
        fail("snappy",
             "a block of " + bytes_text(length) + " with " + bytes_text(in_.size()) + " left");
      }
      uncompress_snappy_block(in_.substr(0, length), out_);
      in_.remove_prefix(length);
      if (!out_.empty()) return {out_.data(), out_.size()};
    }
  }

 private:
  std::string_view in_;
  bool framed_ = false;
  bool raw_read_ = false;
  std::vector<char> out_;
};

// LZ4's frame magic, and the frame descriptor bits Kafka's Lz4BlockInputStream checks.
constexpr uint32_t kLz4Magic = 0x184D2204;

// Kafka's Lz4BlockInputStream reads only frames of version 1 with independent blocks, no
// dictionary id and the reserved bits clear, of a block size it knows (64 KiB to 4 MiB): a frame
// it cannot read is refused here too, though lz4 itself could.
void check_kafka_lz4_descriptor(std::string_view in) {
  if (in.size() < 7 || little_endian32(in.data()) != kLz4Magic) {
    fail("lz4", "the input does not start with an LZ4 frame");
  }
  const auto flg = static_cast<unsigned char>(in[4]);
  const auto bd = static_cast<unsigned char>(in[5]);
  if ((flg >> 6) != 1) fail("lz4", "frame version " + std::to_string(flg >> 6) + ", not 1");
  if ((flg & 0x20) == 0) fail("lz4", "dependent blocks, which Kafka's clients cannot read");
  if ((flg & 0x03) != 0) fail("lz4", "a dictionary id or a reserved frame flag is set");
  if ((bd & 0x8F) != 0 || ((bd >> 4) & 0x7) < 4) {
    fail("lz4", "the block descriptor byte is " + std::to_string(bd));
  }
}

class Lz4 final : public Decompressor {
 public:
  explicit Lz4(std::string_view in) : in_(in) {
    check_kafka_lz4_descriptor(in_);
    if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx_, LZ4F_VERSION))) {
      fail("lz4", "cannot create a decompression context");
    }
  }
  ~Lz4() override { LZ4F_freeDecompressionContext(ctx_); }
  Lz4(const Lz4&) = delete;
  Lz4& operator=(const Lz4&) = delete;

  std::string_view next() override {
    if (ended_) return {};
    for (;;) {
      size_t out_size = out_.size();
      size_t in_size = in_.size();
      const size_t hint =
          LZ4F_decompress(ctx_, out_.data(), &out_size, in_.data(), &in_size, nullptr);
      if (LZ4F_isError(hint)) fail("lz4", LZ4F_getErrorName(hint));
      in_.remove_prefix(in_size);
      if (hint == 0) {
        ended_ = true;
        if (!in_.empty()) fail("lz4", bytes_text(in_.size()) + " follow the LZ4 frame");
        return {out_.data(), out_size};
      }
      if (out_size > 0) return {out_.data(), out_size};
      if (in_size == 0) fail("lz4", "the frame ends early");
    }
  }

 private:
  std::string_view in_;
  LZ4F_dctx* ctx_ = nullptr;
  std::vector<char> out_ = std::vector<char>(kPieceBytes);
  bool ended_ = false;
};

class Zstd final : public Decompressor {
 public:
  explicit Zstd(std::string_view in) : in_{in.data(), in.size(), 0} {
    if (in.size() < 4 || little_endian32(in.data()) != ZSTD_MAGICNUMBER) {
      fail("zstd", "the input does not start with a ZStandard frame");
    }
    ctx_ = ZSTD_createDCtx();
    if (ctx_ == nullptr) fail("zstd", "cannot create a decompression context");
  }
  ~Zstd() override { ZSTD_freeDCtx(ctx_); }
  Zstd(const Zstd&) = delete;
  Zstd& operator=(const Zstd&) = delete;

  std::string_view next() override {
    if (ended_) return {};
    for (;;) {
      ZSTD_outBuffer out{out_.data(), out_.size(), 0};
      const size_t before = in_.pos;
      const size_t rc = ZSTD_decompressStream(ctx_, &out, &in_);
      if (ZSTD_isError(rc)) fail("zstd", ZSTD_getErrorName(rc));
      if (rc == 0) {
        ended_ = true;
        if (in_.pos != in_.size) {
          fail("zstd", bytes_text(in_.size - in_.pos) + " follow the ZStandard frame");
        }
        return {out_.data(), out.pos};
      }
      if (out.pos > 0) return {out_.data(), out.pos};
      if (in_.pos == before) fail("zstd", "the frame ends early");
    }
  }

 private:
  ZSTD_inBuffer in_;
  ZSTD_DCtx* ctx_ = nullptr;
  std::vector<char> out_ = std::vector<char>(kPieceBytes);
  bool ended_ = false;
};

std::string gzip(std::string_view bytes) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    throw std::runtime_error("gzip: zlib cannot start deflating");
  }
  std::string out(deflateBound(&z, static_cast<uLong>(bytes.size())), '\0');
  z.next_in = reinterpret_cast<const Bytef*>(bytes.data());
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("gzip: deflate did not finish");
  return out;
}

std::string snappy_block(std::string_view bytes) {
  std::string out;
  snappy::Compress(bytes.data(), bytes.size(), &out);
  return out;
}

std::string xerial_snappy(std::string_view bytes) {
  std::string out(kXerialMagic);
  append_big_endian32(out, 1);  // version
  append_big_endian32(out, 1);  // oldest compatible version
  for (size_t at = 0; at < bytes.size(); at += kXerialBlockBytes) {
    const std::string block = snappy_block(bytes.substr(at, kXerialBlockBytes));
    append_big_endian32(out, static_cast<uint32_t>(block.size()));
    out += block;
  }
  return out;
}

std::string lz4(std::string_view bytes) {
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.blockSizeID = LZ4F_max64KB;
  prefs.frameInfo.blockMode = LZ4F_blockIndependent;
  std::string out(LZ4F_compressFrameBound(bytes.size(), &prefs), '\0');
  const size_t n = LZ4F_compressFrame(out.data(), out.size(), bytes.data(), bytes.size(), &prefs);
  if (LZ4F_isError(n)) throw std::runtime_error(std::string("lz4: ") + LZ4F_getErrorName(n));
  out.resize(n);
  return out;
}

std::string zstd(std::string_view bytes) {
  std::string out(ZSTD_compressBound(bytes.size()), '\0');
  const size_t n = ZSTD_compress(out.data(), out.size(), bytes.data(), bytes.size(), 3);
  if (ZSTD_isError(n)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

}  // namespace

std::string codec_name(int codec) {
  switch (codec) {
    case 0:
      return "none";
    case 1:
      return "gzip";
    case 2:
      return "snappy";
    case 3:
      return "lz4";
    case 4:
      return "zstd";
    default:
      return "codec " + std::to_string(codec);
  }
}

std::unique_ptr<Decompressor> open_decompressor(Codec codec, std::string_view compressed) {
  switch (codec) {
    case Codec::kNone:
      return std::make_unique<Uncompressed>(compressed);
    case Codec::kGzip:
      return std::make_unique<Gzip>(compressed);
    case Codec::kSnappy:
      return std::make_unique<Snappy>(compressed);
    case Codec::kLz4:
      return std::make_unique<Lz4>(compressed);
    case Codec::kZstd:
      return std::make_unique<Zstd>(compressed);
  }
  throw DecompressError(codec_name(static_cast<int>(codec)) + ": no such codec");
}

std::string compress(Codec codec, std::string_view bytes) {
  switch (codec) {
    case Codec::kNone:
      return std::string(bytes);
    case Codec::kGzip:
      return gzip(bytes);
    case Codec::kSnappy:
      return xerial_snappy(bytes);
    case Codec::kLz4:
      return lz4(bytes);
    case Codec::kZstd:
      return zstd(bytes);
  }
  throw std::invalid_argument(codec_name(static_cast<int>(codec)) + ": no such codec");
}

std::string compress_snappy_block(std::string_view bytes) { return snappy_block(bytes); }

}  // namespace lds::kafka
