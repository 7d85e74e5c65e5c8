// record_batch_fuzzer.cpp: libFuzzer target for Kafka's validation of a client's record batch
// (kafka/server/record_validator.h) and the codec libraries under it. Each input is one batch whose
// magic, batchLength and CRC32C are made right first, so that mutations get past the log's
// framing check to the header rules, the decompressors (any codec number, any compressed bytes)
// and the record framing. Any crash, sanitizer report, leak or exception other than KafkaError is
// a finding.
#include <cstdint>
#include <string>

#include "batch_bytes.h"
#include "kafka/server/record_validator.h"
#include "model/record_batch.h"
#include "model/wire.h"
#include "util/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < lds::kafka::kBatchHeaderBytes) return 0;
  std::string batch(reinterpret_cast<const char*>(data), size);
  batch[lds::kafka::kBatchCrcOffset - 1] = lds::kafka::kMagicV2;
  batch = lds::test::sealed(std::move(batch));
  try {
    (void)lds::kafka::read_batch_header(batch);
  } catch (const lds::kafka::ParseError&) {
    return 0;  // the log's framing check refuses it before the validator sees it (a negative count)
  }
  try {
    lds::kafka::validate_client_batch(batch, "t-0");
  } catch (const lds::KafkaError&) {
    // A refusal: what the validator is for.
  }
  return 0;
}
