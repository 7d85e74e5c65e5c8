// schedule.h: the torture test's steps, drawn with weights from a seed, and their printed forms.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lds::torture {

// What one step does. Its arguments a, b, c are raw random numbers, read against the state the
// step meets (a % topics, a % dirs, ...), so a schedule with steps dropped still means something.
enum class Kind {
  kCreate,
  kDelete,
  kProduce,
  kKafkaProduce,
  kMove,
  kCancelMove,
  kCordon,
  kStrategy,
  kSighup,
  kKillRestart,
  kSecondBroker,
  kBalancer,
  kDrain,
  kSettle,
  kFillDisk,
  kUnfillDisk,
  kRemountReadOnly,
  kShareFilesystem,
  kMalformedProduce,
  kUnreadFetches,
  kMarkedFuture,
  kRenamedSegment,
  kExt4Disk,
  kSwapQueuedMoves,
  kGracefulRestart,
  kTamperedCleanShutdown,
  kTamperedIndex,
};

struct Step {
  Kind kind;
  uint64_t a = 0;
  uint64_t b = 0;
  uint64_t c = 0;
};

// `count` steps drawn from `seed` with the weights of schedule.cpp; the root-only kinds (fill,
// remount, share-filesystem, ext4-disk) only when `as_root`.
std::vector<Step> make_schedule(uint64_t seed, size_t count, bool as_root);

const char* kind_name(Kind kind);
// "produce(a=1, b=2, c=3)".
std::string describe(const Step& step);
// "{Kind::kProduce, 1, 2, 3}", for pasting into regressions.cpp.
std::string as_code(const Step& step);

}  // namespace lds::torture
