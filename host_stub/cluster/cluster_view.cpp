// cluster_view.cpp: brokers from Metadata, log dirs from DescribeLogDirs, and the planner's model
// of a broker made from them.
#include "cluster/cluster_view.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <unordered_map>

#include "kafka/protocol/api_keys.h"
#include "kafka/protocol/metadata.h"
#include "model/wire.h"

namespace lds::cluster {

namespace {

// The first DescribeLogDirs version with TotalBytes and UsableBytes (KIP-827, Kafka 3.3).
constexpr int16_t kDescribeLogDirsWithSizes = 4;

std::vector<BrokerAddress> brokers_of(const std::string& address,
                                      const kafka::ClientOptions& options) {
  kafka::KafkaClient client(address, options);
  const int16_t v = client.version(kafka::ApiKey::kMetadata, 1, 12);
  kafka::MetadataRequest request;
  request.topics = std::vector<std::string>{};  // no topics: only the brokers
  request.allow_auto_topic_creation = false;
  kafka::Writer out;
  kafka::write_metadata_request(out, request, v);
  const std::string body =
      client.call(static_cast<int16_t>(kafka::ApiKey::kMetadata), v, out.bytes());
  kafka::Reader in(body);
  const kafka::MetadataResponse response = kafka::read_metadata_response(in, v);
  std::vector<BrokerAddress> out_brokers;
  for (const auto& b : response.brokers) {
    const bool v6 = b.host.find(':') != std::string::npos;
    out_brokers.push_back(
        {b.node_id, (v6 ? "[" + b.host + "]" : b.host) + ":" + std::to_string(b.port)});
  }
  return out_brokers;
}

}  // namespace

std::vector<BrokerAddress> discover_brokers(const std::vector<std::string>& bootstrap,
                                            const kafka::ClientOptions& options) {
  std::map<int32_t, std::string> found;
  std::string problems;
  for (const std::string& address : bootstrap) {
    try {
      for (const BrokerAddress& b : brokers_of(address, options)) found.emplace(b.id, b.address);
    } catch (const std::exception& e) {
      problems += (problems.empty() ? "" : " ") + std::string(e.what());
    }
  }
  if (found.empty()) {
    throw std::runtime_error(problems.empty() ? "the cluster lists no broker." : problems);
  }
  std::vector<BrokerAddress> out;
  out.reserve(found.size());
  for (const auto& [id, address] : found) out.push_back({id, address});
  return out;
}

kafka::DescribeLogDirsResponse describe_log_dirs(kafka::KafkaClient& client,
                                                 const kafka::DescribeLogDirsRequest& request) {
  const int16_t v = client.version(kafka::ApiKey::kDescribeLogDirs, kDescribeLogDirsWithSizes, 5);
  kafka::Writer out;
  kafka::write_describe_log_dirs_request(out, request, v);
  const std::string body =
      client.call(static_cast<int16_t>(kafka::ApiKey::kDescribeLogDirs), v, out.bytes());
  kafka::Reader in(body);
  kafka::DescribeLogDirsResponse response = kafka::read_describe_log_dirs_response(in, v);
  if (response.error_code != 0) {
    throw std::runtime_error("the broker at " + client.address() + " refused DescribeLogDirs: " +
                             kafka::kafka_error_name(response.error_code) + ".");
  }
  return response;
}

int BrokerView::dir_index(const std::string& path) const {
  for (size_t i = 0; i < model.dirs.size(); ++i) {
    if (model.dirs[i].path == path) return static_cast<int>(i);
  }
  return -1;
}

bool BrokerView::at_rest_in(const TopicPartition& tp, const std::string& path) const {
  if (futures.count(tp) > 0) return false;
  const BalancePartition* p = model.find(tp);
  return p != nullptr && model.dirs[p->dir].path == path;
}

BrokerView broker_view(int32_t id, const std::string& address,
                       const kafka::DescribeLogDirsResponse& response) {
  BrokerView view;
  view.id = id;
  view.address = address;
  struct Future {
    uint32_t dir;
    uint64_t size;
    int64_t lag;
  };
  std::unordered_map<TopicPartition, Future, TopicPartitionHash> futures;
  for (const auto& r : response.results) {
    BalanceDir d;
    d.path = r.log_dir;
    d.online = r.error_code == 0;
    d.cordoned = r.is_cordoned;
    if (d.online && r.total_bytes > 0 && r.usable_bytes >= 0) {
      d.total_bytes = static_cast<uint64_t>(r.total_bytes);
      d.free_bytes = std::min(static_cast<uint64_t>(r.usable_bytes), d.total_bytes);
    }
    const auto dir = static_cast<uint32_t>(view.model.dirs.size());
    view.model.dirs.push_back(std::move(d));
    for (const auto& t : r.topics) {
      for (const auto& p : t.partitions) {
        const TopicPartition tp{t.name, p.partition_index};
        const auto size = static_cast<uint64_t>(std::max<int64_t>(0, p.partition_size));
        view.model.dirs[dir].used_bytes += size;
        if (p.is_future_key) {
          futures[tp] = {dir, size, p.offset_lag};
        } else {
          view.model.partitions.push_back({tp, dir, size, 0, false, 0, std::nullopt});
        }
      }
    }
  }
  for (BalanceDir& d : view.model.dirs) d.used_bytes = std::min(d.used_bytes, d.total_bytes);
  for (BalancePartition& p : view.model.partitions) {
    const auto f = futures.find(p.tp);
    if (f == futures.end() || f->second.dir == p.dir) continue;
    p.moving = true;
    p.moving_to = f->second.dir;
    BalanceDir& to = view.model.dirs[f->second.dir];
    const uint64_t left = p.size - std::min(p.size, f->second.size);
    to.reserved_bytes += left;
    to.free_bytes -= std::min(to.free_bytes, left);
    view.futures[p.tp] = {p.dir, f->second.dir, f->second.size, p.size, f->second.lag};
  }
  return view;
}

}  // namespace lds::cluster
