// cli_output.h: human-readable tables for the lds-host client subcommands.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace lds::cli {

std::string human_bytes(uint64_t bytes);  // "1.5 MiB"

void print_log_dirs(const nlohmann::json& response);
void print_created(const nlohmann::json& response);
void print_produced(const nlohmann::json& response);
void print_deleted(const nlohmann::json& response);
void print_configs(const nlohmann::json& response);
void print_altered(const nlohmann::json& response);

}  // namespace lds::cli
