// schedule.cpp: the weights of the torture test's steps and the text forms of a schedule.
#include "schedule.h"

#include <array>
#include <random>

namespace lds::torture {

namespace {

struct Weighted {
  Kind kind;
  int weight;
  bool root_only;
};

// Data steps dominate; faults are rare enough that data builds up between them.
constexpr std::array kWeights = {
    Weighted{Kind::kCreate, 10, false},          Weighted{Kind::kDelete, 3, false},
    Weighted{Kind::kProduce, 25, false},         Weighted{Kind::kMove, 10, false},
    Weighted{Kind::kCancelMove, 3, false},       Weighted{Kind::kCordon, 4, false},
    Weighted{Kind::kStrategy, 4, false},         Weighted{Kind::kSighup, 3, false},
    Weighted{Kind::kKillRestart, 3, false},      Weighted{Kind::kSecondBroker, 2, false},
    Weighted{Kind::kBalancer, 3, false},         Weighted{Kind::kDrain, 2, false},
    Weighted{Kind::kSettle, 4, false},           Weighted{Kind::kFillDisk, 2, true},
    Weighted{Kind::kUnfillDisk, 3, true},        Weighted{Kind::kRemountReadOnly, 1, true},
    Weighted{Kind::kKafkaProduce, 8, false},     Weighted{Kind::kShareFilesystem, 1, true},
    Weighted{Kind::kMalformedProduce, 2, false}, Weighted{Kind::kUnreadFetches, 1, false},
    Weighted{Kind::kMarkedFuture, 1, false},     Weighted{Kind::kRenamedSegment, 1, false},
    Weighted{Kind::kExt4Disk, 2, true},          Weighted{Kind::kSwapQueuedMoves, 1, false},
    Weighted{Kind::kGracefulRestart, 2, false},  Weighted{Kind::kTamperedCleanShutdown, 2, false},
    Weighted{Kind::kTamperedIndex, 2, false},
};

}  // namespace

std::vector<Step> make_schedule(uint64_t seed, size_t count, bool as_root) {
  std::mt19937_64 rng(seed);
  int total = 0;
  for (const auto& w : kWeights) total += (w.root_only && !as_root) ? 0 : w.weight;
  std::vector<Step> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    int pick = static_cast<int>(rng() % static_cast<uint64_t>(total));
    Kind kind = Kind::kSettle;
    for (const auto& w : kWeights) {
      if (w.root_only && !as_root) continue;
      if (pick < w.weight) {
        kind = w.kind;
        break;
      }
      pick -= w.weight;
    }
    const uint64_t a = rng() % 1000;
    const uint64_t b = rng() % 1000;
    const uint64_t c = rng() % 1000;
    out.push_back({kind, a, b, c});
  }
  return out;
}

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kCreate:
      return "create";
    case Kind::kDelete:
      return "delete";
    case Kind::kProduce:
      return "produce";
    case Kind::kKafkaProduce:
      return "kafka-produce";
    case Kind::kMove:
      return "move";
    case Kind::kCancelMove:
      return "cancel-move";
    case Kind::kCordon:
      return "cordon";
    case Kind::kStrategy:
      return "strategy";
    case Kind::kSighup:
      return "sighup";
    case Kind::kKillRestart:
      return "kill9-restart";
    case Kind::kSecondBroker:
      return "second-broker";
    case Kind::kBalancer:
      return "balancer";
    case Kind::kDrain:
      return "drain";
    case Kind::kSettle:
      return "settle";
    case Kind::kFillDisk:
      return "fill-disk";
    case Kind::kUnfillDisk:
      return "unfill-disk";
    case Kind::kRemountReadOnly:
      return "remount-ro";
    case Kind::kShareFilesystem:
      return "share-filesystem";
    case Kind::kMalformedProduce:
      return "malformed-produce";
    case Kind::kUnreadFetches:
      return "unread-fetches";
    case Kind::kMarkedFuture:
      return "marked-future";
    case Kind::kRenamedSegment:
      return "renamed-segment";
    case Kind::kExt4Disk:
      return "ext4-disk";
    case Kind::kSwapQueuedMoves:
      return "swap-queued-moves";
    case Kind::kGracefulRestart:
      return "sigterm-restart";
    case Kind::kTamperedCleanShutdown:
      return "tampered-clean-shutdown";
    case Kind::kTamperedIndex:
      return "tampered-index";
  }
  return "?";
}

namespace {

const char* kind_enumerator(Kind kind) {
  switch (kind) {
    case Kind::kCreate:
      return "kCreate";
    case Kind::kDelete:
      return "kDelete";
    case Kind::kProduce:
      return "kProduce";
    case Kind::kKafkaProduce:
      return "kKafkaProduce";
    case Kind::kMove:
      return "kMove";
    case Kind::kCancelMove:
      return "kCancelMove";
    case Kind::kCordon:
      return "kCordon";
    case Kind::kStrategy:
      return "kStrategy";
    case Kind::kSighup:
      return "kSighup";
    case Kind::kKillRestart:
      return "kKillRestart";
    case Kind::kSecondBroker:
      return "kSecondBroker";
    case Kind::kBalancer:
      return "kBalancer";
    case Kind::kDrain:
      return "kDrain";
    case Kind::kSettle:
      return "kSettle";
    case Kind::kFillDisk:
      return "kFillDisk";
    case Kind::kUnfillDisk:
      return "kUnfillDisk";
    case Kind::kRemountReadOnly:
      return "kRemountReadOnly";
    case Kind::kShareFilesystem:
      return "kShareFilesystem";
    case Kind::kMalformedProduce:
      return "kMalformedProduce";
    case Kind::kUnreadFetches:
      return "kUnreadFetches";
    case Kind::kMarkedFuture:
      return "kMarkedFuture";
    case Kind::kRenamedSegment:
      return "kRenamedSegment";
    case Kind::kExt4Disk:
      return "kExt4Disk";
    case Kind::kSwapQueuedMoves:
      return "kSwapQueuedMoves";
    case Kind::kGracefulRestart:
      return "kGracefulRestart";
    case Kind::kTamperedCleanShutdown:
      return "kTamperedCleanShutdown";
    case Kind::kTamperedIndex:
      return "kTamperedIndex";
  }
  return "kSettle";
}

}  // namespace

std::string describe(const Step& step) {
  return std::string(kind_name(step.kind)) + "(a=" + std::to_string(step.a) +
         ", b=" + std::to_string(step.b) + ", c=" + std::to_string(step.c) + ")";
}

std::string as_code(const Step& step) {
  return std::string("{Kind::") + kind_enumerator(step.kind) + ", " + std::to_string(step.a) +
         ", " + std::to_string(step.b) + ", " + std::to_string(step.c) + "}";
}

}  // namespace lds::torture
