// request_handler/log_dirs.cpp: AlterReplicaLogDirs through LogManager::alter_replica_log_dir, the
// call the admin API's AlterReplicaLogDirs makes, answered per topic as Kafka groups it.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "broker/broker.h"
#include "broker/kafka_errors.h"
#include "io/log_layout.h"
#include "kafka/protocol/alter_replica_log_dirs.h"
#include "kafka/protocol/api_keys.h"
#include "kafka/protocol/headers.h"
#include "kafka/server/request_handler.h"

namespace lds::kafka {

std::string RequestHandler::alter_replica_log_dirs(std::string_view body, int16_t version,
                                                   int32_t correlation_id) const {
  Reader in(body);
  const AlterReplicaLogDirsRequest request = read_alter_replica_log_dirs_request(in, version);
  AlterReplicaLogDirsResponse r;
  std::map<std::string, size_t> topic_index;  // a topic's entry in r.results, in request order
  for (const auto& dir : request.dirs) {
    for (const auto& topic : dir.topics) {
      auto [it, added] = topic_index.try_emplace(topic.name, r.results.size());
      if (added) r.results.push_back({topic.name, {}});
      for (int32_t partition : topic.partitions) {
        StorageErrc error = StorageErrc::kInvalidTopicName;
        if (layout::topic_name_problem(topic.name).empty()) {
          error = broker_.logs().alter_replica_log_dir({topic.name, partition}, dir.path).error;
        }
        r.results[it->second].partitions.push_back(
            {partition, error_code_of(kafka_error_code(error))});
      }
    }
  }
  Writer out;
  write_response_header(out, correlation_id,
                        response_header_version(ApiKey::kAlterReplicaLogDirs, version));
  write_alter_replica_log_dirs_response(out, r, version);
  return out.take();
}

}  // namespace lds::kafka
