// listener_config_test.cpp: the listeners, socket.request.max.bytes, connections.max.idle.ms and
// max.connections keys: Kafka's PLAINTEXT://host:port format, one sentence for anything else,
// Kafka's defaults, types and bounds.
#include <gtest/gtest.h>

#include <fstream>

#include "broker_toml.h"
#include "config/config.h"
#include "temp_dir.h"
#include "util/errors.h"

namespace lds {
namespace {

class ListenerConfig : public ::testing::Test {
 protected:
  BrokerConfig read(const std::string& extra) {
    return ConfigStore(test::BrokerToml()
                           .log_dirs({dir_.path() / "d"})
                           .lines(extra)
                           .write(dir_.path() / "broker.toml"))
        .current();
  }
  std::string error_of(const std::string& extra) {
    try {
      read(extra);
    } catch (const ConfigError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no ConfigError for " << extra;
    return "";
  }
  test::TempDir dir_;
};

TEST_F(ListenerConfig, DefaultIsNoListenerAndKafkasFrameLimit) {
  const BrokerConfig c = read("");
  EXPECT_TRUE(c.listener_host.empty());
  EXPECT_EQ(c.socket_request_max_bytes, 104857600);
}

TEST_F(ListenerConfig, PlaintextHostAndPortAreRead) {
  BrokerConfig c = read("listeners = \"PLAINTEXT://127.0.0.1:9092\"\n");
  EXPECT_EQ(c.listener_host, "127.0.0.1");
  EXPECT_EQ(c.listener_port, 9092);
  c = read("listeners = \"PLAINTEXT://[::1]:0\"\nsocket.request.max.bytes = 1024\n");
  EXPECT_EQ(c.listener_host, "::1");
  EXPECT_EQ(c.listener_port, 0);
  EXPECT_EQ(c.socket_request_max_bytes, 1024);
}

TEST_F(ListenerConfig, OtherSecurityProtocolsAreRefusedInOneSentence) {
  const std::string e = error_of("listeners = \"SSL://127.0.0.1:9093\"\n");
  EXPECT_NE(e.find("broker.toml:2:"), std::string::npos) << e;
  EXPECT_NE(e.find("listeners: only the PLAINTEXT security protocol is supported, not \"SSL\""),
            std::string::npos)
      << e;
  EXPECT_EQ(e.find('\n'), std::string::npos);
  EXPECT_NE(error_of("listeners = \"SASL_PLAINTEXT://h:1\"\n").find("SASL_PLAINTEXT"),
            std::string::npos);
}

TEST_F(ListenerConfig, MalformedListenersAreRefused) {
  for (const char* bad :
       {"127.0.0.1:9092", "PLAINTEXT://127.0.0.1", "PLAINTEXT://:9092", "PLAINTEXT://h:65536",
        "PLAINTEXT://h:-1", "PLAINTEXT://h:x", "PLAINTEXT://a:1,PLAINTEXT://b:2"}) {
    const std::string e = error_of(std::string("listeners = \"") + bad + "\"\n");
    EXPECT_NE(e.find("listeners: "), std::string::npos) << bad << ": " << e;
  }
  EXPECT_NE(error_of("socket.request.max.bytes = 0\n").find("socket.request.max.bytes"),
            std::string::npos);
}

TEST_F(ListenerConfig, ConnectionLimitsHaveKafkasDefaultsTypesAndBounds) {
  BrokerConfig c = read("");
  EXPECT_EQ(c.connections_max_idle_ms, 600000);
  EXPECT_EQ(c.max_connections, 2147483647);
  c = read("connections.max.idle.ms = 300\nmax.connections = 0\n");
  EXPECT_EQ(c.connections_max_idle_ms, 300);
  EXPECT_EQ(c.max_connections, 0);
  // A long with no bound: negative keeps idle connections open.
  EXPECT_EQ(read("connections.max.idle.ms = -1\n").connections_max_idle_ms, -1);
  EXPECT_EQ(read("connections.max.idle.ms = 9223372036854775807\n").connections_max_idle_ms,
            INT64_MAX);
  EXPECT_NE(error_of("connections.max.idle.ms = \"soon\"\n")
                .find("connections.max.idle.ms: must be an integer, not a string"),
            std::string::npos);
  EXPECT_NE(error_of("max.connections = -1\n").find("max.connections: must be an integer from 0"),
            std::string::npos);
  EXPECT_NE(error_of("max.connections = 2147483648\n").find("max.connections"), std::string::npos);
}

}  // namespace
}  // namespace lds
