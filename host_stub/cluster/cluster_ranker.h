// cluster_ranker.h: destinations for a move on a broker seen through Kafka's protocol, ranked by a
// strategy plugin loaded here (--strategy from --plugin-dir), the same rank call the in-broker
// balancer makes (LDS_RANK_MOVE), with each dir's space as the plan projects it.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "balance/balance_planner.h"
#include "strategy/strategy_slot.h"

namespace lds::cluster {

// Loads <plugin_dir>/liblds_<name>.so with `options` (its own keys, prefix removed), checked as a
// broker checks a strategy before using it. Throws PluginError with one sentence naming the file.
std::shared_ptr<const LoadedStrategy> load_cluster_strategy(
    const std::filesystem::path& plugin_dir, const std::string& name,
    const std::vector<std::pair<std::string, std::string>>& options);

// Ranks destinations in `model` (which must outlive the result) with `slot`'s strategy; cordoned
// dirs are never returned, whatever the strategy answers.
RankDestinations cluster_ranker(StrategySlot& slot, const BalanceModel& model);

}  // namespace lds::cluster
