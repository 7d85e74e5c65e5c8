// client_batches.h: record batches as a Kafka client sends them compressed, with any codec
// (kafka/protocol/compression.h: link lds_kafka_protocol), and the byte edits of batch_bytes.h.
#pragma once

#include <string>
#include <vector>

#include "batch_bytes.h"
#include "kafka/protocol/compression.h"
#include "model/record_batch.h"

namespace lds::test {

// One batch of `records` compressed with `codec`, as a producer sends it (baseOffset 0).
inline std::string compressed_batch(kafka::Codec codec, const std::vector<kafka::Record>& records) {
  const std::string plain = kafka::build_batch(0, 1700000000000, records);
  return with_records_area(plain, kafka::compress(codec, records_area(plain)),
                           static_cast<int>(codec));
}

}  // namespace lds::test
