// balance_config.h: the intra-broker balancer's settings, the log.dir.balance.* keys (all dynamic).
#pragma once

#include <cstdint>

namespace lds {

struct BalanceConfig {
  bool enable = false;               // log.dir.balance.enable
  double threshold_percent = 10;     // log.dir.balance.threshold.percent: the allowed spread
  int64_t interval_ms = 60000;       // log.dir.balance.interval.ms: how often it checks
  int32_t max_concurrent_moves = 2;  // log.dir.balance.max.concurrent.moves
  int64_t cooldown_ms = 3600000;     // log.dir.balance.cooldown.ms: no second move of a partition

  bool operator==(const BalanceConfig&) const = default;
};

}  // namespace lds
