// variants.cpp: the built-in strategy variants and the lookup of a variant by name.
#include "sim/variants.h"

#include "sim/text.h"
#include "util/errors.h"

namespace lds::sim {

bool is_baseline_plugin(std::string_view plugin) {
  return plugin == "hdfs_available_space" || plugin == "elasticsearch_path";
}

std::vector<StrategyVariant> builtin_variants(uint64_t seed) {
  std::vector<StrategyVariant> variants{
      {"partition", "partition", {}, "fewest partitions (Kafka's rule)"},
      {"partition_spread",
       "partition",
       {{"spread.topic", "true"}},
       "fewest partitions of the topic, then fewest partitions"},
      {"size_fill", "size", {{"balance", "fill"}}, "lowest projected fill fraction"},
      {"size_free", "size", {{"balance", "free"}}, "most projected free bytes (KIP-178's rule)"},
      {"cordon", "cordon", {}, "cordoned disks excluded, then fewest partitions"},
      {"cordon_size", "cordon", {{"order", "size"}}, "cordoned disks excluded, then fill"},
      {"hdfs",
       "hdfs_available_space",
       {{"seed", std::to_string(seed)}},
       "HDFS AvailableSpaceVolumeChoosingPolicy (10 GiB, 0.75)"},
      {"elasticsearch", "elasticsearch_path", {}, "Elasticsearch's shard path choice"},
  };
  for (StrategyVariant& v : variants) v.baseline = is_baseline_plugin(v.plugin);
  return variants;
}

std::vector<std::string> default_strategy_names() {
  return {"partition", "partition_spread", "size_fill", "size_free", "hdfs", "elasticsearch"};
}

StrategyVariant find_variant(const Trace& trace, const std::string& name) {
  // "<variant>+balance": the variant with the intra-broker balancer on.
  if (name.size() > kBalanceSuffix.size() && name.ends_with(kBalanceSuffix)) {
    StrategyVariant v = find_variant(trace, name.substr(0, name.size() - kBalanceSuffix.size()));
    v.name = name;
    v.balance = true;
    v.description += " + the intra-broker balancer";
    return v;
  }
  for (const StrategyVariant& v : trace.variants) {
    if (v.name == name) return v;
  }
  std::string known;
  for (const StrategyVariant& v : builtin_variants(trace.seed)) {
    if (v.name == name) return v;
    append_item(known, v.name, ", ");
  }
  for (const StrategyVariant& v : trace.variants) append_item(known, v.name, ", ");
  throw ConfigError(trace.file.string() + ": strategy \"" + name +
                    "\" is neither built in nor a [[strategy]] of the trace (known: " + known +
                    ").");
}

}  // namespace lds::sim
