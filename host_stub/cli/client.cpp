// client.cpp: the admin client plumbing of lds-host: finding the socket, one request and response,
// and byte-count options.
#include "cli/client.h"

#include <iostream>
#include <optional>

#include "admin/admin_client.h"
#include "cli/output.h"
#include "core/byte_size.h"
#include "core/config.h"

namespace lds::cli {

using nlohmann::json;

void add_target_options(CLI::App* cmd, Target& target) {
  cmd->add_option("--config", target.config, "Broker config file; its admin.socket is used");
  cmd->add_option("--socket", target.socket, "Admin socket path (instead of --config)");
  cmd->add_flag("--json", target.json, "Print the API's JSON response instead of a table");
}

std::filesystem::path socket_of(const Target& target) {
  if (!target.socket.empty()) return target.socket;
  if (target.config.empty())
    throw CLI::ValidationError("--config or --socket", "one of them is required");
  return admin_socket_of_file(target.config);
}

int call(const Target& target, const json& request, int (*print)(const json&)) {
  json response;
  try {
    AdminClient client(socket_of(target));
    response = json::parse(client.call(request.dump()));
  } catch (const std::exception& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
    return kExitUsage;
  }
  const std::string error = response.value("error", kUnknownServerError);
  if (error != kNone) {
    if (target.json) std::cout << response.dump(2) << "\n";
    std::cerr << "lds-host: " << error << ": " << response.value("message", "") << "\n";
    return kExitRefused;
  }
  if (target.json) {
    std::cout << response.dump(2) << "\n";
    return any_partition_failed(response) ? kExitRefused : kExitOk;
  }
  return print(response) == 0 ? kExitOk : kExitRefused;
}

uint64_t parse_bytes_option(const std::string& text) {
  ByteSizeError why{};
  if (const std::optional<uint64_t> bytes = parse_byte_size(text, &why)) return *bytes;
  switch (why) {
    case ByteSizeError::kNotANumber:
      break;
    case ByteSizeError::kUnknownUnit:
      throw CLI::ValidationError("bytes",
                                 "'" + text + "' has an unknown unit; use B, KiB, MiB or GiB");
    case ByteSizeError::kTooLarge:
      throw CLI::ValidationError("bytes", "'" + text + "' is more than 2^64-1 bytes");
  }
  throw CLI::ValidationError("bytes", "'" + text + "' is not a byte count such as 1048576 or 1MiB");
}

}  // namespace lds::cli
