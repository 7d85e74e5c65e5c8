// topic_id.cpp: topic ids derived from the cluster id and the topic name (FNV-1a, twice).
#include "kafka/protocol/topic_id.h"

#include "io/log_layout.h"
#include "model/uuid.h"

namespace lds::kafka {
namespace {

uint64_t fnv1a(std::string_view a, std::string_view b, uint64_t basis) {
  uint64_t h = basis;
  auto mix = [&](unsigned char c) {
    h ^= c;
    h *= 0x100000001b3ULL;
  };
  for (char c : a) mix(static_cast<unsigned char>(c));
  mix(0);  // so that ("ab", "c") and ("a", "bc") differ
  for (char c : b) mix(static_cast<unsigned char>(c));
  return h;
}

}  // namespace

Uuid topic_id(std::string_view cluster_id, std::string_view topic) {
  const uint64_t high = fnv1a(cluster_id, topic, 0xcbf29ce484222325ULL);
  const uint64_t low = fnv1a(topic, cluster_id, 0x84222325cbf29ce4ULL);
  Uuid id;
  for (int i = 0; i < 8; ++i) {
    id[i] = static_cast<uint8_t>(high >> (56 - 8 * i));
    id[8 + i] = static_cast<uint8_t>(low >> (56 - 8 * i));
  }
  // The top bit clear keeps the first base64 character below 'g', so never '-'; a set bit in the
  // second byte keeps the id off ZERO_UUID (all zeros) and METADATA_TOPIC_ID (zeros, then 1).
  id[0] &= 0x7f;
  id[1] |= 0x01;
  return id;
}

std::string topic_id_text(const Uuid& id) {
  return uuid_text(std::span<const unsigned char, 16>(id.data(), id.size()));
}

}  // namespace lds::kafka
