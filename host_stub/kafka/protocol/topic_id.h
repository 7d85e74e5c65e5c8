// topic_id.h: the topic id (KIP-516) this broker answers for a topic. Its log directories keep no
// topic id, so the id is derived from the cluster id and the topic name: the same on every start
// and every request, different for each topic and cluster. A topic deleted and created again
// under the same name gets the same id, where Kafka would give it a new one.
#pragma once

#include <string>
#include <string_view>

#include "model/wire.h"

namespace lds::kafka {

// Never Kafka's ZERO_UUID or METADATA_TOPIC_ID, and its text form never starts with '-'.
Uuid topic_id(std::string_view cluster_id, std::string_view topic);

// Kafka's Uuid.toString: 22 characters of URL-safe base64.
std::string topic_id_text(const Uuid& id);

}  // namespace lds::kafka
