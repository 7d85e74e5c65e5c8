// compression_test.cpp: Kafka's codecs through their libraries: what compress() writes reads back
// byte for byte, a piece at a time, for every codec; snappy both framed and raw; and the streams a
// client could not read back are refused: a second gzip member or ZStandard frame, bytes after the
// stream, LZ4 frames Kafka's reader does not take, a broken checksum, a snappy block that claims
// more than it could hold.
#include "kafka/protocol/compression.h"

#include <gtest/gtest.h>
#include <lz4frame.h>

#include <string>

namespace lds::kafka {
namespace {

constexpr Codec kCodecs[] = {Codec::kNone, Codec::kGzip, Codec::kSnappy, Codec::kLz4, Codec::kZstd};

// Everything `codec` decompresses `compressed` to, and how many pieces it came in.
std::string decompressed(Codec codec, std::string_view compressed, size_t* pieces = nullptr) {
  const std::unique_ptr<Decompressor> d = open_decompressor(codec, compressed);
  std::string out;
  for (std::string_view piece = d->next(); !piece.empty(); piece = d->next()) {
    out += piece;
    if (pieces != nullptr) ++*pieces;
  }
  return out;
}

// 3 MiB of text that compresses, but not to nothing.
std::string sample() {
  std::string s;
  uint32_t x = 12345;
  while (s.size() < (3u << 20)) {
    x = x * 1103515245 + 12345;
    s += "record " + std::to_string(x % 1000) + " of " + std::to_string(s.size()) + "; ";
  }
  return s;
}

std::string what_fails(Codec codec, std::string_view compressed) {
  try {
    decompressed(codec, compressed);
  } catch (const DecompressError& e) {
    return e.what();
  }
  return "";
}

TEST(Compression, EveryCodecReadsBackWhatItWrote) {
  const std::string plain = sample();
  for (Codec codec : kCodecs) {
    SCOPED_TRACE(codec_name(static_cast<int>(codec)));
    const std::string packed = compress(codec, plain);
    size_t pieces = 0;
    EXPECT_EQ(decompressed(codec, packed, &pieces), plain);
    if (codec != Codec::kNone) {
      EXPECT_LT(packed.size(), plain.size() / 2);
      EXPECT_GT(pieces, 10u) << "memory stays bounded: many pieces";
    }
    EXPECT_EQ(decompressed(codec, compress(codec, "")), "");
  }
  EXPECT_EQ(decompressed(Codec::kSnappy, compress_snappy_block(plain)), plain);
  EXPECT_EQ(codec_name(3), "lz4");
  EXPECT_EQ(codec_name(7), "codec 7");
}

TEST(Compression, NothingMayFollowTheStream) {
  for (Codec codec : {Codec::kGzip, Codec::kLz4, Codec::kZstd}) {
    SCOPED_TRACE(codec_name(static_cast<int>(codec)));
    const std::string one = compress(codec, "first");
    // A second member or frame: Kafka's Java reader would read both, librdkafka the first only.
    EXPECT_NE(what_fails(codec, one + compress(codec, "second")).find(" follow the "),
              std::string::npos);
    EXPECT_NE(what_fails(codec, one + "x"), "");
  }
  EXPECT_EQ(what_fails(Codec::kSnappy, compress(Codec::kSnappy, "first") + "xy"),
            "snappy: a block length is cut short");
}

TEST(Compression, BrokenStreamsAreRefused) {
  const std::string plain = sample().substr(0, 100000);
  for (Codec codec : {Codec::kGzip, Codec::kSnappy, Codec::kLz4, Codec::kZstd}) {
    SCOPED_TRACE(codec_name(static_cast<int>(codec)));
    const std::string packed = compress(codec, plain);
    EXPECT_NE(what_fails(codec, packed.substr(0, packed.size() / 2)), "");
    EXPECT_NE(what_fails(codec, plain), "");
    EXPECT_NE(what_fails(codec, ""), "");
  }
  // gzip's CRC32 of the content: the trailer's first byte flipped.
  std::string gzip = compress(Codec::kGzip, plain);
  gzip[gzip.size() - 8] = static_cast<char>(gzip[gzip.size() - 8] ^ 1);
  EXPECT_EQ(what_fails(Codec::kGzip, gzip), "gzip: incorrect data check");
}

TEST(Compression, Lz4FramesKafkasReaderCannotReadAreRefused) {
  const std::string plain = sample().substr(0, 300000);
  auto frame = [&](LZ4F_blockMode_t mode, bool checksums) {
    LZ4F_preferences_t prefs{};
    prefs.frameInfo.blockSizeID = LZ4F_max64KB;
    prefs.frameInfo.blockMode = mode;
    if (checksums) {
      prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
      prefs.frameInfo.blockChecksumFlag = LZ4F_blockChecksumEnabled;
      prefs.frameInfo.contentSize = plain.size();
    }
    std::string out(LZ4F_compressFrameBound(plain.size(), &prefs), '\0');
    out.resize(LZ4F_compressFrame(out.data(), out.size(), plain.data(), plain.size(), &prefs));
    return out;
  };
  // Checksums and a content size are Kafka's to read (and lz4 checks them).
  std::string checked = frame(LZ4F_blockIndependent, true);
  EXPECT_EQ(decompressed(Codec::kLz4, checked), plain);
  checked[checked.size() - 1] = static_cast<char>(checked[checked.size() - 1] ^ 1);
  EXPECT_NE(what_fails(Codec::kLz4, checked), "");
  // Linked blocks: lz4 reads them, Kafka's Lz4BlockInputStream does not.
  EXPECT_EQ(what_fails(Codec::kLz4, frame(LZ4F_blockLinked, false)),
            "lz4: dependent blocks, which Kafka's clients cannot read");
  std::string skippable("\x50\x2a\x4d\x18\x00\x00\x00\x00", 8);
  EXPECT_EQ(what_fails(Codec::kLz4, skippable + frame(LZ4F_blockIndependent, false)),
            "lz4: the input does not start with an LZ4 frame");
}

TEST(Compression, ASnappyBlockClaimingMoreThanItCanHoldIsRefusedUnread) {
  // Length header 0xFFFFFFF0 (4 GiB), then a few bytes: refused before 4 GiB is allocated.
  const std::string huge("\xf0\xff\xff\xff\x0f\x00\x61", 7);
  EXPECT_EQ(what_fails(Codec::kSnappy, huge),
            "snappy: a block of 7 bytes claims 4294967280 bytes uncompressed");
  std::string framed = compress(Codec::kSnappy, "abc");
  framed.resize(16);
  framed += std::string("\x00\x00\x00\x07", 4) + huge;
  EXPECT_NE(what_fails(Codec::kSnappy, framed).find("claims 4294967280 bytes"), std::string::npos);
}

}  // namespace
}  // namespace lds::kafka
