// explain.cpp: `lds-host explain`: why a partition went where it went, as its creation decided it
// (ExplainPlacement): the ranking with the figures the strategy read then, and the dir chosen.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/client.h"
#include "cli/command.h"
#include "cli/output.h"

namespace lds::cli {
namespace {

using nlohmann::json;

struct ExplainArgs {
  Target target;
  std::string topic;
  int32_t partition = 0;
};

int print_explanation(const json& r) {
  const std::string name =
      r.value("topic", "?") + "-" + std::to_string(r.value("partition", int32_t{0}));
  const std::string now_in = r.value("logDir", "");
  if (!r.value("kept", false)) {
    std::printf("%s is in %s.\n%s\n", name.c_str(), now_in.c_str(), r.value("reason", "").c_str());
    return 0;
  }
  const json& p = r["placement"];
  const std::string placed_in = p.value("logDir", "");
  std::printf("%s (expected %s) was placed in %s by %s, generation %llu, at %s:\n", name.c_str(),
              human_bytes(p.value("expectedBytes", 0ull)).c_str(), placed_in.c_str(),
              p.value("strategy", "-").c_str(),
              static_cast<unsigned long long>(p.value("generation", 0ull)),
              p.value("placedAt", "?").c_str());
  print_ranking(p);
  if (now_in != placed_in) {
    std::printf("%s has moved since: it is now in %s.\n", name.c_str(), now_in.c_str());
  }
  std::printf("(The figures are those the strategy read when %s was placed.)\n", name.c_str());
  return 0;
}

}  // namespace

Command add_explain_command(CLI::App& app) {
  auto args = std::make_shared<ExplainArgs>();
  auto* cmd = app.add_subcommand(
      "explain",
      "Show why a partition went where it went: the ranking of its creation, with the figures "
      "the strategy read then (ExplainPlacement)");
  add_target_options(cmd, args->target);
  cmd->add_option("--topic", args->topic, "Topic name")->required();
  cmd->add_option("--partition", args->partition, "Partition number")
      ->required()
      ->check(CLI::NonNegativeNumber);
  return {cmd, [args] {
            return call(args->target,
                        json{{"api", "ExplainPlacement"},
                             {"topic", args->topic},
                             {"partition", args->partition}},
                        print_explanation);
          }};
}

}  // namespace lds::cli
