// admin_request_fuzzer.cpp: libFuzzer target for the admin request parser (AdminApi::handle_line
// against an in-memory broker). Each input is split into lines as the admin server splits a
// connection's stream. Any crash or sanitizer report is a finding, and so is a response that is
// not valid JSON, lacks "error" or "message", is UNKNOWN_SERVER_ERROR (an exception the API did
// not map to a Kafka error), or refuses a request without saying why.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "fuzz_harness.h"

namespace {

[[noreturn]] void finding(const std::string& what, std::string_view request,
                          const std::string& response) {
  std::fprintf(stderr, "admin_request_fuzzer: %s\nrequest: %.*s\nresponse: %s\n", what.c_str(),
               static_cast<int>(request.size()), request.data(), response.c_str());
  std::abort();
}

void check_response(std::string_view request, const std::string& response) {
  const nlohmann::json r = nlohmann::json::parse(response, nullptr, false);
  if (r.is_discarded()) finding("the response is not valid JSON", request, response);
  if (!r.is_object() || !r.contains("error") || !r["error"].is_string() || !r.contains("message") ||
      !r["message"].is_string()) {
    finding("the response lacks a string error or message", request, response);
  }
  const std::string error = r["error"].get<std::string>();
  if (error == "UNKNOWN_SERVER_ERROR") finding("an unexpected exception", request, response);
  if (error != "NONE" && r["message"].get<std::string>().empty()) {
    finding("a refusal without a message", request, response);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static lds::fuzz::AdminHarness harness(LDS_FUZZ_PLUGIN_DIR);
  static uint64_t inputs = 0;
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  while (!rest.empty()) {
    const size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    check_response(line, harness.handle(line));
  }
  // Bounded state: partitions and dynamic config pile up across inputs otherwise.
  if (++inputs % 2000 == 0 || harness.partition_count() > 20000) harness.reset();
  return 0;
}
