// topic_configs.h: the topic configs DescribeConfigs lists for a TOPIC resource, with Kafka's
// defaults (its LogConfig) and, where this broker has one, the broker key each one follows.
#pragma once

#include <span>
#include <string_view>

namespace lds::kafka {

struct TopicConfigDefault {
  std::string_view name;
  std::string_view value;  // Kafka's default, in the text form DescribeConfigs shows
  // The broker key of this broker whose value the topic config takes (Kafka's
  // ServerTopicConfigSynonyms), or empty when this broker has no such key.
  std::string_view broker_key;
};

// Every topic config Kafka's LogConfig defines (internal ones aside), sorted by name. This broker
// keeps no per-topic overrides, so each one is its broker key's value or Kafka's default.
std::span<const TopicConfigDefault> topic_config_defaults();

}  // namespace lds::kafka
