// placement_decision.h: where a placement decided a new partition goes, and who decided: the
// directories to try, best first, as a decision holds them, and where the partition went once
// created.
#pragma once

#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "strategy/strategy_plugin.h"

namespace lds {

// Where a new partition went and who decided.
struct PlacementResult {
  std::string log_dir;
  bool created = false;  // false: the replica already existed there (Kafka's getOrCreateLog)
  std::string strategy;  // "preferred" when a remembered KIP-113 preference decided
  uint64_t generation = 0;
  bool fell_back = false;
};

// Where a partition would go, decided but not yet created. (small_vector's move may allocate, so
// the implicit move constructor is not noexcept; decisions are moved only on the slow path.)
struct PlacementDecision {  // NOLINT(bugprone-exception-escape)
  // Held inline for up to 16 directories, so a decision allocates nothing on a typical broker.
  boost::container::small_vector<uint32_t, 16> dirs;  // log-dir indices to try, best first
  uint64_t expected_bytes = 0;
  uint64_t expected_bytes_in_per_sec = 0;  // the rate sent in lds_request (ABI 1.1)
  uint64_t generation = 0;
  bool fell_back = false;  // the plugin's answer was refused: the built-in order decided
  bool preferred = false;  // a remembered KIP-113 preference decided
  // The strategy active when it was decided: told where the partition went (ABI 1.2 placed).
  std::shared_ptr<const LoadedStrategy> placer;
  std::string refusal;  // why the plugin's answer was refused, when fell_back

  // Who decided: "preferred", the strategy's name, "builtin" with none loaded, or
  // "partition-count fallback (<name>: <refusal>)". Made when asked: a decision copies no name.
  std::string strategy() const;
};

}  // namespace lds
