// balance_api.h: the admin requests of the intra-broker balancer: DescribeBalance, Balance (plan,
// execute, cancel) and DrainLogDir, as JSON.
#pragma once

#include <nlohmann/json.hpp>

namespace lds {

class Broker;

// {"api":"DescribeBalance"}: state, spread, moves in flight with progress, bytes moved since start.
nlohmann::json describe_balance(Broker& broker);
// {"api":"Balance","action":"plan"|"execute"|"cancel"}: "plan" changes nothing; "execute" runs a
// round now; "cancel" stops the round. Throws KafkaError INVALID_REQUEST for another action.
nlohmann::json balance(Broker& broker, const nlohmann::json& request);
// {"api":"DrainLogDir","logDir":D}: cordons D and moves every replica off it, or refuses up front
// (INVALID_REPLICA_ASSIGNMENT, naming the shortfall in bytes) when the others cannot hold it.
nlohmann::json drain_log_dir(Broker& broker, const nlohmann::json& request);

}  // namespace lds
