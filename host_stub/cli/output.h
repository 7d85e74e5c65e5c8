// cli_output.h: human-readable tables for the lds-host client subcommands.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace lds::cli {

std::string human_bytes(uint64_t bytes);  // "1.5 MiB"
// A JSON percentage as a table shows it: "6.1%", or "-" when it is null (space unknown).
std::string percent_column(const nlohmann::json& percent);

// Each prints a successful response and returns the exit code: 0, or 1 when part of the request
// was refused (for example one partition of a CreatePartitions).
int print_log_dirs(const nlohmann::json& response);
int print_created(const nlohmann::json& response);
// DescribePlacement (create --dry-run): per partition, the dirs in rank order with the figures the
// strategy read, then those left out with the reason; 1 when a creation would fail. A strategy
// that reports scores (ABI 1.2 score_name) gets a column of its own beside FILL.
int print_placement(const nlohmann::json& response);

// Whether the strategy DescribeLogDirs names ({"name", "options"}) ranks by projected fill: size
// in its default fill mode, or cordon with order=size. Its ranking then follows PROJECTED, not
// FILL, so the tables show both.
bool ranks_by_projected_fill(const nlohmann::json& strategy);
// The table of one placement (a partition of DescribePlacement, ExplainPlacement's placement):
// rank, log dir, the figures the strategy read, and why each dir left out was. A strategy that
// reported scores (scoreName, ABI 1.2) gets its own column beside FILL, headed by that name, and a
// line under the table saying what it is.
void print_ranking(const nlohmann::json& placement);
// DescribeConfigs as a table: every config with its source, whether it is dynamic, and its value.
int print_configs(const nlohmann::json& response);
// DescribeConfigs as kafka-configs.sh --describe --entity-type brokers prints it: the dynamic
// configs, or with --all every config, one `  name=value sensitive=false synonyms={...}` line each.
int print_dynamic_configs(const nlohmann::json& response);
int print_all_configs(const nlohmann::json& response);
// After an alter: kafka-configs.sh's "Completed updating config for broker <id>.", then each of
// `names` as `name: old → new` from the DescribeConfigs responses before and after.
int print_altered(const nlohmann::json& before, const nlohmann::json& after,
                  const std::vector<std::string>& names);
// DescribeBalance as the one balancer line of `lds-host describe`.
int print_balancer_line(const nlohmann::json& response);

// Whether any partition result of a CreatePartitions response carries an error.
bool any_partition_failed(const nlohmann::json& response);

}  // namespace lds::cli
