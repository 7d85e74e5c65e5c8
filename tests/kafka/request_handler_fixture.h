// request_handler_fixture.h: a request handler over a broker of the suite's making (by default in
// memory, with two log dirs and partition t-0, the partition strategy), and calls that frame one
// request at each version with the header versions its API calls for.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "broker/broker.h"
#include "broker_toml.h"
#include "kafka/protocol/api_keys.h"
#include "kafka/protocol/configs.h"
#include "kafka/protocol/create_partitions.h"
#include "kafka/protocol/headers.h"
#include "kafka/server/request_handler.h"
#include "temp_dir.h"
#include "util/logging.h"

namespace lds::kafka {

class RequestHandlerFixture : public ::testing::Test {
 protected:
  // What a suite's broker is made of.
  struct BrokerSetup {
    std::vector<std::string> log_dirs = {"d1", "d2"};  // under the suite's temp folder
    bool in_memory = true;                             // logs on disk when false
    std::vector<int32_t> partitions = {0};             // of topic t, created before the test
    std::string extra_config;                          // TOML lines added to the broker's file
  };
  virtual BrokerSetup broker_setup() const { return {}; }

  void SetUp() override {
    const char* plugins = std::getenv("LDS_PLUGIN_DIR");
    ASSERT_NE(plugins, nullptr) << "LDS_PLUGIN_DIR is not set (CTest sets it)";
    const BrokerSetup setup = broker_setup();
    const auto file = dir_.path() / "broker.toml";
    test::BrokerToml()
        .log_dirs({setup.log_dirs.begin(), setup.log_dirs.end()})
        .plugin_dir(plugins)
        .set("log.level", "off")
        .lines(setup.extra_config)
        .write(file);
    broker_ = std::make_unique<Broker>(file, std::make_shared<StatvfsDiskProbe>(), setup.in_memory);
    broker_->start();
    for (int32_t p : setup.partitions) broker_->logs().create_partition("t", p);
    handler_ = std::make_unique<RequestHandler>(*broker_, Endpoint{"127.0.0.1", 9092});
  }
  void TearDown() override {
    handler_.reset();
    broker_.reset();
    set_log_level("info");
  }

  // The response body of one request (the header versions its API and version call for), after
  // checking its correlation id.
  std::string call(int16_t key, int16_t version, const std::string& body) {
    const ApiRange api = *find_api(key);
    Writer w;
    write_request_header(w, {key, version, 42, std::string("c")},
                         request_header_version(api, version));
    w.raw(body);
    const Reply r = handler_->handle(w.bytes());
    EXPECT_TRUE(r.close_reason.empty()) << r.close_reason;
    const std::string frame = joined(r.frame, r.splices);  // a Fetch's batches from their files
    Reader in(frame);
    EXPECT_EQ(read_response_header(in, response_header_version(api, version)), 42);
    return frame.substr(in.position());
  }

  CreatePartitionsResponse::Result create_partitions(CreatePartitionsRequest::Topic topic,
                                                     bool validate_only = false) {
    Writer body;
    write_create_partitions_request(body, {{std::move(topic)}, 1000, validate_only}, 1);
    const std::string reply = call(37, 1, body.bytes());
    Reader in(reply);
    return read_create_partitions_response(in, 1).results.at(0);
  }

  DescribeConfigsResponse describe(DescribeConfigsRequest request, int16_t version) {
    Writer body;
    write_describe_configs_request(body, request, version);
    const std::string reply = call(32, version, body.bytes());
    Reader in(reply);
    DescribeConfigsResponse r = read_describe_configs_response(in, version);
    EXPECT_EQ(in.remaining(), 0u);
    return r;
  }

  AlterConfigsResponse::Result alter(std::vector<AlterConfigsRequest::Config> configs,
                                     bool incremental, bool validate_only = false,
                                     const std::string& broker = "0") {
    Writer body;
    AlterConfigsRequest request;
    request.resources.push_back({resource_type::kBroker, broker, std::move(configs)});
    request.validate_only = validate_only;
    // The newest versions, both flexible.
    const int16_t version = incremental ? 1 : 2;
    write_alter_configs_request(body, request, incremental, version);
    const std::string reply = call(incremental ? 44 : 33, version, body.bytes());
    Reader in(reply);
    return read_alter_configs_response(in, incremental, version).responses.at(0);
  }

  std::set<int32_t> partitions_of(const std::string& topic) const {
    std::set<int32_t> out;
    for (const TopicPartition& tp : broker_->logs().hosted_partitions()) {
      if (tp.topic == topic) out.insert(tp.partition);
    }
    return out;
  }

  // The value and source of one key in the broker's own DescribeConfigs.
  std::pair<std::string, std::string> config_of(const std::string& name) const {
    for (const DescribedConfig& c : broker_->describe_configs()) {
      if (c.name == name) return {c.value, c.source};
    }
    return {"?", "?"};
  }

  test::TempDir dir_;
  std::unique_ptr<Broker> broker_;
  std::unique_ptr<RequestHandler> handler_;
};

}  // namespace lds::kafka
