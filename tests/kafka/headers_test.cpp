// headers_test.cpp: request header versions 0 to 2 and response header versions 0 and 1, as
// Kafka's RequestHeader.json and ResponseHeader.json define them.
#include "kafka/protocol/headers.h"

#include <gtest/gtest.h>

#include "kafka_test_bytes.h"

namespace lds::kafka {
namespace {

using test::from_hex;
using test::to_hex;

// RequestHeader.json: v0 key, version, correlation id; v1 adds a nullable client id that is never
// compact; v2 adds tagged fields.
TEST(Headers, RequestHeaderVersions) {
  RequestHeader h{18, 3, 0x01020304, std::string("kcat")};
  Writer w;
  write_request_header(w, h, 2);
  EXPECT_EQ(to_hex(w.bytes()), "00 12 00 03 01 02 03 04 00 04 6b 63 61 74 00");
  Reader r(w.bytes());
  const RequestHeader back = read_request_header(r, 2);
  EXPECT_EQ(back.api_key, 18);
  EXPECT_EQ(back.api_version, 3);
  EXPECT_EQ(back.correlation_id, 0x01020304);
  EXPECT_EQ(back.client_id, "kcat");
  EXPECT_EQ(r.remaining(), 0u);

  Writer w1;
  write_request_header(w1, {3, 1, 9, std::nullopt}, 1);
  EXPECT_EQ(to_hex(w1.bytes()), "00 03 00 01 00 00 00 09 ff ff");
  Writer w0;
  write_request_header(w0, {3, 0, 9, std::string("x")}, 0);
  EXPECT_EQ(to_hex(w0.bytes()), "00 03 00 00 00 00 00 09");
}

TEST(Headers, ResponseHeaderVersions) {
  Writer w0;
  write_response_header(w0, 5, 0);
  EXPECT_EQ(to_hex(w0.bytes()), "00 00 00 05");
  Writer w1;
  write_response_header(w1, 5, 1);
  EXPECT_EQ(to_hex(w1.bytes()), "00 00 00 05 00");
  Reader r(w1.bytes());
  EXPECT_EQ(read_response_header(r, 1), 5);
  EXPECT_EQ(r.remaining(), 0u);
}

}  // namespace
}  // namespace lds::kafka
