// uuid.h: Kafka's Uuid as text (Uuid.toString and Uuid.fromString), the form of cluster.id and
// directory.id: written from 16 bytes, and checked when read.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace lds {

// The 22-character URL-safe base64 text (no padding) of 16 bytes, as Kafka's Uuid.toString.
std::string uuid_text(std::span<const unsigned char, 16> bytes);

// "" when `id` is a Kafka Uuid as written in meta.properties (22 characters of URL-safe base64,
// decoding to 16 bytes), else why not.
std::string uuid_problem(std::string_view id);

// "" when Kafka's Uuid.fromString accepts `text`, else why not, as a clause: at most 24
// characters of URL-safe base64 (padding only as Base64.getUrlDecoder allows it) decoding to
// exactly 16 bytes; in practice 22 characters, or the same with "==". What kafka-storage.sh
// format checks a --cluster-id with.
std::string uuid_string_problem(std::string_view text);

}  // namespace lds
