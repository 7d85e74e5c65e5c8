// topic_configs.cpp: the table of topic configs and their defaults, from Kafka's LogConfig,
// TopicConfig and ServerLogConfigs (4.x).
#include "kafka/server/topic_configs.h"

namespace lds::kafka {
namespace {

constexpr std::string_view kLongMax = "9223372036854775807";

constexpr TopicConfigDefault kTopicConfigs[] = {
    {"cleanup.policy", "delete", ""},
    {"compression.gzip.level", "-1", ""},
    {"compression.lz4.level", "9", ""},
    {"compression.type", "producer", ""},
    {"compression.zstd.level", "3", ""},
    {"delete.retention.ms", "86400000", ""},
    {"file.delete.delay.ms", "60000", ""},
    {"flush.messages", kLongMax, ""},
    {"flush.ms", kLongMax, ""},
    {"follower.replication.throttled.replicas", "", ""},
    {"index.interval.bytes", "4096", "log.index.interval.bytes"},
    {"leader.replication.throttled.replicas", "", ""},
    {"local.retention.bytes", "-2", ""},
    {"local.retention.ms", "-2", ""},
    {"max.compaction.lag.ms", kLongMax, ""},
    {"max.message.bytes", "1048588", "message.max.bytes"},
    {"message.timestamp.after.max.ms", "3600000", ""},
    {"message.timestamp.before.max.ms", kLongMax, ""},
    {"message.timestamp.type", "CreateTime", ""},
    {"min.cleanable.dirty.ratio", "0.5", ""},
    {"min.compaction.lag.ms", "0", ""},
    {"min.insync.replicas", "1", "", true},
    {"preallocate", "false", ""},
    {"remote.log.copy.disable", "false", ""},
    {"remote.log.delete.on.disable", "false", ""},
    {"remote.storage.enable", "false", ""},
    {"retention.bytes", "-1", ""},
    {"retention.ms", "604800000", ""},
    {"segment.bytes", "1073741824", "log.segment.bytes"},
    {"segment.index.bytes", "10485760", ""},
    {"segment.jitter.ms", "0", ""},
    {"segment.ms", "604800000", ""},
    {"unclean.leader.election.enable", "false", ""},
};

}  // namespace

std::span<const TopicConfigDefault> topic_config_defaults() { return kTopicConfigs; }

}  // namespace lds::kafka
