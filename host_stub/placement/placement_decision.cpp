// placement_decision.cpp: who decided a placement, named as create and explain name it.
#include "placement/placement_decision.h"

namespace lds {

namespace {

// PlacementDecision::strategy() when a remembered KIP-113 preference decided.
constexpr const char* kPreferredPlacement = "preferred";

}  // namespace

std::string PlacementDecision::strategy() const {
  if (preferred) return kPreferredPlacement;
  std::string name = placer ? placer->name() : "builtin";
  if (!fell_back) return name;
  return "partition-count fallback (" + name + ": " + refusal + ")";
}

}  // namespace lds
