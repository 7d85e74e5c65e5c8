// abi_freeze_test.cpp: freezes the C ABI: every struct layout, constant and signature, and the text
// of abi/logdir_strategy.h itself, so no change to the contract slips in without a version bump.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>

#include <lds/logdir_strategy.h>

namespace {

// The recorded fingerprint of abi/logdir_strategy.h: "<major>.<minor> <FNV-1a 64 of the text>".
// Comments count: they define what each field and status means, which is part of the contract.
// When the header changes, bump LDS_ABI_MINOR (compatible: appended fields, new constants) or
// LDS_ABI_MAJOR (anything else), review the static_asserts below, then record the new line here
// and keep the old one in kEarlierAbis.
constexpr std::string_view kRecordedAbi = "1.2 e8f4b387bf321841";
// Every earlier release of the header, oldest first. The frozen copies in tests/abi/v1_<minor>/
// must still hash to their lines: they are what the compatibility tests build old plugins from.
constexpr std::string_view kAbi10 = "1.0 a50a44a0e4833082";
constexpr std::string_view kAbi11 = "1.1 2e74fef6b8d70aaf";

// The layout asserts below describe exactly this version.
static_assert(LDS_ABI_MAJOR == 1 && LDS_ABI_MINOR == 2,
              "the ABI version changed: review every static_assert in abi_freeze_test.cpp, then "
              "update them and kRecordedAbi for the new version");

#define LDS_FREEZE_FIELD(type, field, field_type, offset)                                     \
  static_assert(std::is_same_v<decltype(type::field), field_type>,                            \
                #type "." #field " changed type: that is an ABI break (bump LDS_ABI_MAJOR)"); \
  static_assert(offsetof(type, field) == (offset),                                            \
                #type "." #field " moved: that is an ABI break (bump LDS_ABI_MAJOR)")

#define LDS_FREEZE_STRUCT(type, size, align)                                                      \
  static_assert(std::is_standard_layout_v<type> && std::is_trivially_copyable_v<type>,            \
                #type " must stay a plain C struct");                                             \
  static_assert(sizeof(type) == (size),                                                           \
                #type " changed size: appended fields need LDS_ABI_MINOR, others LDS_ABI_MAJOR"); \
  static_assert(alignof(type) == (align), #type " changed alignment")

// Result codes, flags, capabilities, log levels and versions: values and types.
static_assert(std::is_same_v<lds_status, int32_t>);
static_assert(std::is_same_v<decltype(LDS_OK), lds_status> && LDS_OK == 0);
static_assert(std::is_same_v<decltype(LDS_ERR_INVALID_ARGUMENT), lds_status> &&
              LDS_ERR_INVALID_ARGUMENT == 1);
static_assert(std::is_same_v<decltype(LDS_ERR_NO_ELIGIBLE_DIR), lds_status> &&
              LDS_ERR_NO_ELIGIBLE_DIR == 2);
static_assert(std::is_same_v<decltype(LDS_ERR_UNSUPPORTED), lds_status> &&
              LDS_ERR_UNSUPPORTED == 3);
static_assert(std::is_same_v<decltype(LDS_ERR_INTERNAL), lds_status> && LDS_ERR_INTERNAL == 4);
static_assert(LDS_DIR_CORDONED == 0x1u && LDS_DIR_SPACE_UNKNOWN == 0x2u &&
              LDS_DIR_RATE_UNKNOWN == 0x4u);
static_assert(LDS_CAP_HONORS_CORDON == 0x1ull && LDS_CAP_USES_SPACE == 0x2ull &&
              LDS_CAP_USES_RESERVATIONS == 0x4ull && LDS_CAP_DETERMINISTIC == 0x8ull);
static_assert(LDS_RANK_PLACE == 0u && LDS_RANK_VALIDATE == 1u && LDS_RANK_PREVIEW == 2u &&
              LDS_RANK_MOVE == 3u);
static_assert(LDS_LOG_TRACE == 0 && LDS_LOG_DEBUG == 1 && LDS_LOG_INFO == 2 && LDS_LOG_WARN == 3 &&
              LDS_LOG_ERROR == 4);

// The entry point: its name, spelled three ways, and its signature.
#define LDS_FREEZE_STRINGIFY_(x) #x
#define LDS_FREEZE_STRINGIFY(x) LDS_FREEZE_STRINGIFY_(x)
static_assert(std::string_view(LDS_ENTRY_POINT_NAME) == "lds_strategy_get");
static_assert(std::string_view(LDS_FREEZE_STRINGIFY(LDS_ENTRY_POINT)) == "lds_strategy_get");
using EntryPoint = const lds_strategy* (*)(uint32_t, uint32_t);
static_assert(std::is_same_v<lds_strategy_get_fn, EntryPoint>);
static_assert(std::is_same_v<decltype(&lds_strategy_get), EntryPoint>);

// Function pointer fields.
using LogFn = void (*)(void*, int32_t, const char*);
using LogEnabledFn = int32_t (*)(void*, int32_t);
using CreateFn = int32_t (*)(const lds_host_api*, const lds_config_entry*, uint32_t, void**, char*,
                             uint32_t);
using DestroyFn = void (*)(void*);
using RankFn = int32_t (*)(void*, lds_rank_args*);
using PlacedFn = void (*)(void*, const lds_request*, const lds_dir*);

#if defined(__LP64__)
// Layouts on LP64 (64-bit Linux), the platforms the project ships for. The fields of 1.0 keep the
// offsets they had in 1.0; 1.1 appends to lds_dir (48 -> 56) and lds_request (24 -> 32) only;
// 1.2 appends to lds_rank_args (64 -> 72; purpose takes the old tail padding) and lds_strategy
// (64 -> 80).
LDS_FREEZE_STRUCT(lds_dir, 56, 8);
LDS_FREEZE_FIELD(lds_dir, struct_size, uint32_t, 0);
LDS_FREEZE_FIELD(lds_dir, flags, uint32_t, 4);
LDS_FREEZE_FIELD(lds_dir, path, const char*, 8);
LDS_FREEZE_FIELD(lds_dir, total_bytes, uint64_t, 16);
LDS_FREEZE_FIELD(lds_dir, usable_bytes, uint64_t, 24);
LDS_FREEZE_FIELD(lds_dir, reserved_bytes, uint64_t, 32);
LDS_FREEZE_FIELD(lds_dir, partition_count, uint32_t, 40);
LDS_FREEZE_FIELD(lds_dir, topic_partition_count, uint32_t, 44);
LDS_FREEZE_FIELD(lds_dir, bytes_in_per_sec, uint64_t, 48);  // 1.1

LDS_FREEZE_STRUCT(lds_request, 32, 8);
LDS_FREEZE_FIELD(lds_request, struct_size, uint32_t, 0);
LDS_FREEZE_FIELD(lds_request, partition, int32_t, 4);
LDS_FREEZE_FIELD(lds_request, topic, const char*, 8);
LDS_FREEZE_FIELD(lds_request, expected_bytes, uint64_t, 16);
LDS_FREEZE_FIELD(lds_request, expected_bytes_in_per_sec, uint64_t, 24);  // 1.1

LDS_FREEZE_STRUCT(lds_rank_args, 72, 8);
LDS_FREEZE_FIELD(lds_rank_args, struct_size, uint32_t, 0);
LDS_FREEZE_FIELD(lds_rank_args, dir_count, uint32_t, 4);
LDS_FREEZE_FIELD(lds_rank_args, dir_stride, uint32_t, 8);
LDS_FREEZE_FIELD(lds_rank_args, request, const lds_request*, 16);
LDS_FREEZE_FIELD(lds_rank_args, dirs, const lds_dir*, 24);
LDS_FREEZE_FIELD(lds_rank_args, order, uint32_t*, 32);
LDS_FREEZE_FIELD(lds_rank_args, order_len, uint32_t, 40);
LDS_FREEZE_FIELD(lds_rank_args, error, char*, 48);
LDS_FREEZE_FIELD(lds_rank_args, error_cap, uint32_t, 56);
LDS_FREEZE_FIELD(lds_rank_args, purpose, uint32_t, 60);  // 1.2
LDS_FREEZE_FIELD(lds_rank_args, scores, double*, 64);    // 1.2

LDS_FREEZE_STRUCT(lds_config_entry, 16, 8);
LDS_FREEZE_FIELD(lds_config_entry, key, const char*, 0);
LDS_FREEZE_FIELD(lds_config_entry, value, const char*, 8);

LDS_FREEZE_STRUCT(lds_host_api, 32, 8);
LDS_FREEZE_FIELD(lds_host_api, struct_size, uint32_t, 0);
LDS_FREEZE_FIELD(lds_host_api, context, void*, 8);
LDS_FREEZE_FIELD(lds_host_api, log, LogFn, 16);
LDS_FREEZE_FIELD(lds_host_api, log_enabled, LogEnabledFn, 24);

LDS_FREEZE_STRUCT(lds_strategy, 80, 8);
LDS_FREEZE_FIELD(lds_strategy, struct_size, uint32_t, 0);
LDS_FREEZE_FIELD(lds_strategy, abi_major, uint16_t, 4);
LDS_FREEZE_FIELD(lds_strategy, abi_minor, uint16_t, 6);
LDS_FREEZE_FIELD(lds_strategy, name, const char*, 8);
LDS_FREEZE_FIELD(lds_strategy, version, const char*, 16);
LDS_FREEZE_FIELD(lds_strategy, description, const char*, 24);
LDS_FREEZE_FIELD(lds_strategy, capabilities, uint64_t, 32);
LDS_FREEZE_FIELD(lds_strategy, create, CreateFn, 40);
LDS_FREEZE_FIELD(lds_strategy, destroy, DestroyFn, 48);
LDS_FREEZE_FIELD(lds_strategy, rank, RankFn, 56);
LDS_FREEZE_FIELD(lds_strategy, placed, PlacedFn, 64);         // 1.2
LDS_FREEZE_FIELD(lds_strategy, score_name, const char*, 72);  // 1.2

// A 1.0 or 1.1 host's lds_rank_args is 64 bytes and covers purpose (in its padding) but not
// scores: LDS_RANK_ARGS_HAVE_PURPOSE tells the two apart, LDS_HAS_FIELD on purpose would not.
constexpr lds_rank_args kArgs11{64, 0, 0, nullptr, nullptr, nullptr, 0, nullptr, 0, 0, nullptr};
constexpr lds_rank_args kArgs12{72, 0, 0, nullptr, nullptr, nullptr, 0, nullptr, 0, 0, nullptr};
static_assert(!LDS_RANK_ARGS_HAVE_PURPOSE(&kArgs11));
static_assert(LDS_RANK_ARGS_HAVE_PURPOSE(&kArgs12));
#endif

// FNV-1a 64 of the text, with CRLF read as LF so a checkout's line endings do not matter.
// LDS_HAS_FIELD: exactly the structs whose struct_size covers the field's last byte.
constexpr lds_dir kDir10{48, 0, nullptr, 0, 0, 0, 0, 0, 0};
constexpr lds_dir kDir11{56, 0, nullptr, 0, 0, 0, 0, 0, 0};
constexpr lds_dir kDirShort{55, 0, nullptr, 0, 0, 0, 0, 0, 0};
static_assert(LDS_HAS_FIELD(&kDir10, lds_dir, topic_partition_count));
static_assert(!LDS_HAS_FIELD(&kDir10, lds_dir, bytes_in_per_sec));
static_assert(!LDS_HAS_FIELD(&kDirShort, lds_dir, bytes_in_per_sec));
static_assert(LDS_HAS_FIELD(&kDir11, lds_dir, bytes_in_per_sec));
constexpr lds_request kRequest10{24, 0, nullptr, 0, 0};
constexpr lds_request kRequest11{32, 0, nullptr, 0, 0};
static_assert(!LDS_HAS_FIELD(&kRequest10, lds_request, expected_bytes_in_per_sec));
static_assert(LDS_HAS_FIELD(&kRequest11, lds_request, expected_bytes_in_per_sec));

uint64_t fnv1a64(std::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    hash ^= static_cast<unsigned char>(text[i]);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::string hex64(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::string read_text(const char* file) {
  std::ifstream in(file, std::ios::binary);
  EXPECT_TRUE(in) << "cannot read " << file;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The frozen 1.0 header is the 1.0 release, byte for byte (as far as FNV-1a tells): old plugins
// in the compatibility tests are built from it.
TEST(AbiFreeze, FrozenCopyOfAbi10IsUnchanged) {
  const std::string text = read_text(LDS_ABI_V1_0_HEADER_FILE);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ("1.0 " + hex64(fnv1a64(text)), kAbi10)
      << "tests/abi/v1_0/logdir_strategy.h must stay the released 1.0 header; never edit it.";
}

TEST(AbiFreeze, FrozenCopyOfAbi11IsUnchanged) {
  const std::string text = read_text(LDS_ABI_V1_1_HEADER_FILE);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ("1.1 " + hex64(fnv1a64(text)), kAbi11)
      << "tests/abi/v1_1/logdir_strategy.h must stay the released 1.1 header; never edit it.";
}

TEST(AbiFreeze, HeaderMatchesTheRecordedHashForItsVersion) {
  const std::string text = read_text(LDS_ABI_HEADER_FILE);
  const std::string hash = hex64(fnv1a64(text));
  const std::string version = std::to_string(LDS_ABI_MAJOR) + "." + std::to_string(LDS_ABI_MINOR);

  const size_t space = kRecordedAbi.find(' ');
  ASSERT_NE(space, std::string_view::npos) << "kRecordedAbi must be \"<major>.<minor> <hash>\"";
  const std::string recorded_version(kRecordedAbi.substr(0, space));
  const std::string recorded_hash(kRecordedAbi.substr(space + 1));
  const std::string record_it =
      "record \"" + version + " " + hash + "\" as kRecordedAbi in tests/abi/abi_freeze_test.cpp";

  if (hash == recorded_hash) {
    EXPECT_EQ(version, recorded_version)
        << "kRecordedAbi names ABI " << recorded_version << " but the header is ABI " << version
        << "; " << record_it << ".";
    return;
  }
  if (version == recorded_version) {
    ADD_FAILURE() << "The ABI header abi/logdir_strategy.h changed (FNV-1a " << hash
                  << ") but still says ABI " << version << ", whose recorded hash is "
                  << recorded_hash << ". If the change is compatible (fields appended at the end "
                  << "of a struct, new constants) bump LDS_ABI_MINOR; otherwise (a field, "
                  << "signature, value or documented meaning changed) bump LDS_ABI_MAJOR. Then "
                  << "review the static_asserts in this file and update the recorded hash: "
                  << "record \"<new version> <new hash>\" as kRecordedAbi. (An edit that changes "
                  << "no field, value or meaning, such as a typo fix, needs no bump: " << record_it
                  << ".)";
  } else {
    ADD_FAILURE() << "The ABI header abi/logdir_strategy.h changed from ABI " << recorded_version
                  << " (hash " << recorded_hash << ") to ABI " << version << " (hash " << hash
                  << "). Check the bump fits the change: LDS_ABI_MINOR for appended fields or new "
                  << "constants, LDS_ABI_MAJOR for anything else. Then " << record_it << ".";
  }
}

// LDS_DIR_AT walks the candidates by dir_stride, so a larger host lds_dir is read correctly.
TEST(AbiFreeze, DirAtStepsByStride) {
  struct Wider {
    lds_dir dir;
    uint64_t appended;
  };
  Wider dirs[3] = {};
  for (uint32_t i = 0; i < 3; ++i) dirs[i].dir.partition_count = 10 + i;
  lds_rank_args args{};
  args.dirs = &dirs[0].dir;
  args.dir_count = 3;
  args.dir_stride = sizeof(Wider);
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(LDS_DIR_AT(&args, i), &dirs[i].dir);
    EXPECT_EQ(LDS_DIR_AT(&args, i)->partition_count, 10 + i);
  }
}

}  // namespace
