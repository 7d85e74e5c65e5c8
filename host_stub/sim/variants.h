// variants.h: the named strategy configurations a simulation compares: the built-in ones and a
// trace's own [[strategy]] tables.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/trace.h"

namespace lds::sim {

// The variants every trace can name: partition, partition_spread, size_fill, size_free, cordon,
// cordon_size, hdfs (seeded with `seed`), elasticsearch.
std::vector<StrategyVariant> builtin_variants(uint64_t seed);
// partition, partition_spread, size_fill, size_free, hdfs, elasticsearch.
std::vector<std::string> default_strategy_names();
// Whether `plugin` is one of the comparison baselines (hdfs_available_space, elasticsearch_path),
// which are built for the simulator only and never shipped.
bool is_baseline_plugin(std::string_view plugin);
// The suffix that turns the balancer on for a variant: "size_fill+balance".
inline constexpr std::string_view kBalanceSuffix = "+balance";

// The trace's own variant of that name, else the built-in one; either with kBalanceSuffix is that
// variant with the balancer on. Throws ConfigError listing the known names.
StrategyVariant find_variant(const Trace& trace, const std::string& name);

}  // namespace lds::sim
