// cli_output.h: human-readable tables for the lds-host client subcommands.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace lds::cli {

std::string human_bytes(uint64_t bytes);  // "1.5 MiB"

// Each prints a successful response and returns the exit code: 0, or 1 when part of the request
// was refused (for example one partition of a CreatePartitions).
int print_log_dirs(const nlohmann::json& response);
int print_created(const nlohmann::json& response);
int print_produced(const nlohmann::json& response);
int print_configs(const nlohmann::json& response);
int print_altered(const nlohmann::json& response);
// DescribeBalance as the one balancer line of `lds-host describe`.
int print_balancer_line(const nlohmann::json& response);

// Whether any partition result of a CreatePartitions response carries an error.
bool any_partition_failed(const nlohmann::json& response);

}  // namespace lds::cli
