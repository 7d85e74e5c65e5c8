// topic_configs.h: the topic configs DescribeConfigs lists for a TOPIC resource, with Kafka's
// defaults (its LogConfig) and, where this broker has one, the broker key each one follows.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "kafka/protocol/configs.h"

namespace lds::kafka {

struct TopicConfigDefault {
  std::string_view name;
  std::string_view value;  // Kafka's default, in the text form DescribeConfigs shows
  // The broker key of this broker whose value the topic config takes (Kafka's
  // ServerTopicConfigSynonyms), or empty when this broker has no such key.
  std::string_view broker_key;
  // Set where a cluster formatted by Kafka 4 holds the broker key as a cluster-wide dynamic
  // default: min.insync.replicas=1, which kafka-storage format records (KIP-966's eligible
  // leader replicas need it). The topic config then shows that source, as it does on Kafka.
  bool cluster_default = false;
};

// Every topic config Kafka's LogConfig defines (internal ones aside), sorted by name. This broker
// keeps no per-topic overrides, so each one is its broker key's value or Kafka's default.
std::span<const TopicConfigDefault> topic_config_defaults();

// The entries of a topic's configs as DescribeConfigs (a TOPIC resource) and CreateTopics (v5+)
// answer them: every topic config, or those in `keys`, each the value of the broker key it
// follows in `described` (with that key's source, and its synonyms when asked for), else Kafka's
// default.
std::vector<DescribeConfigsResponse::Config> topic_config_entries(
    const std::vector<DescribedConfig>& described,
    const std::optional<std::vector<std::string>>& keys, bool with_synonyms);

}  // namespace lds::kafka
