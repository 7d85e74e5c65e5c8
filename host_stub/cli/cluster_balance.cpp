// cluster_balance.cpp: the cluster balancer's command line: its options, Kafka's client config
// file (--command-config), the plan as a table or JSON, and the loops of --execute, --daemon and
// drain.
#include "cli/cluster_balance.h"

#include <algorithm>
#include <csignal>
#include <ctime>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>

#include "balance/balance_planner.h"
#include "cli/client.h"
#include "cli/output.h"
#include "cluster/cluster_balancer.h"
#include "cluster/cluster_ranker.h"
#include "sim/plugin_search.h"

namespace lds::cli {
namespace {

using nlohmann::json;

volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_stop_signal(int) { g_stop = 1; }

std::string trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t\r"));
  s.erase(s.find_last_not_of(" \t\r") + 1);
  return s;
}

// Kafka's client properties file, as kafka-reassign-partitions.sh --command-config takes it. Only
// PLAINTEXT is spoken: a file asking for TLS or SASL is refused, not half obeyed.
kafka::ClientOptions client_options(const std::string& path) {
  kafka::ClientOptions options;
  if (path.empty()) return options;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("--command-config " + path + " cannot be read.");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == '!') continue;
    const size_t eq = line.find_first_of("=:");
    if (eq == std::string::npos) {
      throw std::runtime_error(path + " line " + std::to_string(number) + " is not KEY=VALUE: '" +
                               line + "'.");
    }
    const std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    if (key == "security.protocol" && value != "PLAINTEXT") {
      throw std::runtime_error(path + ": security.protocol=" + value +
                               " is not spoken here; lds-host connects with PLAINTEXT only.");
    }
    if (key.rfind("ssl.", 0) == 0 || key.rfind("sasl.", 0) == 0) {
      throw std::runtime_error(path + ": " + key +
                               " asks for TLS or SASL, which lds-host does not speak.");
    }
    if (key == "request.timeout.ms") {
      try {
        size_t used = 0;
        const long long ms = std::stoll(value, &used);
        if (used != value.size() || ms <= 0) throw std::invalid_argument(value);
        options.request_timeout = std::chrono::milliseconds(ms);
      } catch (const std::exception&) {
        throw std::runtime_error(path + ": request.timeout.ms=" + value +
                                 " is not a positive number of milliseconds.");
      }
    } else if (key == "client.id") {
      options.client_id = value;
    } else if (key != "security.protocol" && key != "bootstrap.servers") {
      std::cerr << "lds-host: " << path << ": " << key << " is ignored.\n";
    }
  }
  return options;
}

std::vector<std::pair<std::string, std::string>> strategy_options(const ClusterArgs& args) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& kv : args.strategy_options) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw CLI::ValidationError("--strategy-option", "'" + kv + "' is not KEY=VALUE");
    }
    out.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return out;
}

std::string now_text() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

json plan_json(const cluster::ClusterRound& round) {
  json brokers = json::array();
  uint64_t planned = 0, lower = 0;
  for (const cluster::BrokerRound& b : round.brokers) {
    json broker = {{"id", b.id}, {"address", b.address}};
    if (!b.error.empty()) {
      broker["error"] = b.error;
      brokers.push_back(broker);
      continue;
    }
    const BalancePlan& p = b.plan;
    json moves = json::array();
    for (const PlannedMove& m : p.moves) {
      moves.push_back({{"topic", m.tp.topic},
                       {"partition", m.tp.partition},
                       {"from", b.model.dirs[m.from].path},
                       {"to", b.model.dirs[m.to].path},
                       {"bytes", m.bytes},
                       {"reason", m.reason}});
    }
    std::vector<std::vector<std::string>> replicas(b.model.dirs.size());
    for (const BalancePartition& r : b.model.partitions) replicas[r.dir].push_back(r.tp.str());
    json dirs = json::array();
    for (size_t i = 0; i < p.dirs.size(); ++i) {
      const BalanceDir& d = b.model.dirs[i];
      std::sort(replicas[i].begin(), replicas[i].end());
      dirs.push_back({{"logDir", p.dirs[i].path},
                      {"totalBytes", d.total_bytes},
                      {"usableBytes", d.free_bytes + d.reserved_bytes},
                      {"replicaBytes", d.used_bytes},
                      {"eligible", p.dirs[i].eligible},
                      {"cordoned", d.cordoned},
                      {"online", d.online},
                      {"fillPercentBefore", p.dirs[i].before_percent},
                      {"fillPercentAfter", p.dirs[i].after_percent},
                      {"replicas", replicas[i]}});
    }
    broker.update({{"idealFillPercent", p.ideal_percent},
                   {"thresholdPercent", p.threshold_percent},
                   {"spreadPercentBefore", p.spread_before_percent},
                   {"spreadPercentAfter", p.spread_after_percent},
                   {"summary", p.summary},
                   {"drainedDir", b.drained_dir},
                   {"movesInFlight", b.in_flight},
                   {"moves", moves},
                   {"plannedBytes", p.planned_bytes},
                   {"lowerBoundBytes", p.lower_bound_bytes},
                   {"logDirs", dirs}});
    planned += p.planned_bytes;
    lower += p.lower_bound_bytes;
    brokers.push_back(broker);
  }
  return {{"brokers", brokers}, {"plannedBytes", planned}, {"lowerBoundBytes", lower}};
}

void print_plan(const json& plan) {
  for (const json& b : plan["brokers"]) {
    std::printf("Broker %d (%s)", b["id"].get<int>(), b["address"].get<std::string>().c_str());
    if (b.contains("error")) {
      std::printf(": cannot be read: %s\n\n", b["error"].get<std::string>().c_str());
      continue;
    }
    std::printf(": ideal fill %.1f%%, spread %.1f points (threshold %.1f): %s\n",
                b["idealFillPercent"].get<double>(), b["spreadPercentBefore"].get<double>(),
                b["thresholdPercent"].get<double>(), b["summary"].get<std::string>().c_str());
    if (b["movesInFlight"].get<size_t>() > 0) {
      std::printf("Moves in flight: %zu\n", b["movesInFlight"].get<size_t>());
    }
    if (!b["moves"].empty()) {
      std::printf("  %-24s %-32s %-32s %11s\n", "PARTITION", "FROM", "TO", "BYTES");
      for (const json& m : b["moves"]) {
        const std::string name =
            m["topic"].get<std::string>() + "-" + std::to_string(m["partition"].get<int>());
        std::printf("  %-24s %-32s %-32s %11s\n", name.c_str(),
                    m["from"].get<std::string>().c_str(), m["to"].get<std::string>().c_str(),
                    human_bytes(m["bytes"].get<uint64_t>()).c_str());
      }
    }
    std::printf("  %-40s %8s %8s\n", "LOG DIR", "BEFORE", "AFTER");
    for (const json& d : b["logDirs"]) {
      std::string state =
          d["online"].get<bool>() ? (d["cordoned"].get<bool>() ? " (cordoned)" : "") : " (offline)";
      char before[16] = "-", after[16] = "-";
      if (d["eligible"].get<bool>()) {
        std::snprintf(before, sizeof before, "%.1f%%", d["fillPercentBefore"].get<double>());
        std::snprintf(after, sizeof after, "%.1f%%", d["fillPercentAfter"].get<double>());
      }
      std::printf("  %-40s %8s %8s\n", (d["logDir"].get<std::string>() + state).c_str(), before,
                  after);
    }
    std::printf("\n");
  }
  size_t moves = 0;
  for (const json& b : plan["brokers"]) moves += b.value("moves", json::array()).size();
  std::printf(
      "Cluster: %zu brokers, %zu moves, %s (%llu bytes) against a lower bound of %s "
      "(%llu bytes)\n",
      plan["brokers"].size(), moves, human_bytes(plan["plannedBytes"]).c_str(),
      static_cast<unsigned long long>(plan["plannedBytes"].get<uint64_t>()),
      human_bytes(plan["lowerBoundBytes"]).c_str(),
      static_cast<unsigned long long>(plan["lowerBoundBytes"].get<uint64_t>()));
}

// Sleeps `ms`, waking early when a stop signal came.
void nap(int64_t ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (g_stop == 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min<int64_t>(ms, 100)));
  }
}

// Whether `round` gets its summary line: one that started, finished or missed something, the
// first, the last, and else one every 10 s while moves copy.
class RoundLines {
 public:
  bool wanted(const cluster::ClusterRound& round) {
    const auto now = std::chrono::steady_clock::now();
    const bool settled = round.settled();
    const bool want = round.eventful() || !last_ || settled != last_settled_ ||
                      now - *last_ >= std::chrono::seconds(10);
    if (want) last_ = now;
    last_settled_ = settled;
    return want;
  }

 private:
  std::optional<std::chrono::steady_clock::time_point> last_;
  bool last_settled_ = false;
};

// --execute and drain: rounds until every broker has settled; 0 when every broker ends within
// the band (a drain: when its dir is empty).
int run_until_settled(cluster::ClusterBalancer& balancer, const ClusterArgs& args,
                      const std::string& drain_dir) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(args.timeout_seconds);
  RoundLines lines;
  // Rounds in a row that could not go on: no broker answered, or only unreadable brokers were
  // left with anything to do. Past kGiveUpRounds the run ends with the last reason.
  static constexpr int kGiveUpRounds = 5;
  int stuck = 0;
  bool answered = false;
  for (;;) {
    cluster::ClusterRound round;
    std::string problem;
    try {
      round = balancer.round();
      answered = true;
    } catch (const std::exception& e) {
      if (!answered) throw;  // nothing answers at all: a connection error, exit 2
      problem = e.what();
      std::printf("%s\n", problem.c_str());
    }
    for (const cluster::BrokerRound& b : round.brokers) {
      if (!b.error.empty()) problem = "broker " + std::to_string(b.id) + ": " + b.error;
    }
    const bool others_idle =
        std::all_of(round.brokers.begin(), round.brokers.end(),
                    [](const cluster::BrokerRound& b) { return !b.error.empty() || b.settled; });
    stuck = !problem.empty() && others_idle ? stuck + 1 : 0;
    if (stuck >= kGiveUpRounds) {
      std::cerr << "lds-host: gave up after " << kGiveUpRounds << " rounds: " << problem << "\n";
      return kExitRefused;
    }
    if (!round.brokers.empty() && (lines.wanted(round) || round.settled())) {
      std::printf("%s\n", round.summary().c_str());
    }
    std::fflush(stdout);
    if (!round.brokers.empty() && round.settled()) {
      for (const std::string& line : balancer.totals()) std::printf("%s\n", line.c_str());
      int rc = kExitOk;
      for (const cluster::BrokerRound& b : round.brokers) {
        if (!drain_dir.empty()) {
          const bool empty = std::none_of(
              b.model.partitions.begin(), b.model.partitions.end(),
              [&](const BalancePartition& p) { return b.model.dirs[p.dir].path == drain_dir; });
          if (!empty) {
            std::cerr << "lds-host: the drain of " << drain_dir << " on broker " << b.id
                      << " stopped short: " << b.waiting << "\n";
            rc = kExitRefused;
          } else {
            std::printf(
                "Drained %s on broker %d. Next: remove it from log.dirs and restart "
                "the broker.\n",
                drain_dir.c_str(), b.id);
          }
        } else if (!b.within_band) {
          std::cerr << "lds-host: broker " << b.id << " ends at a spread of "
                    << percent_text(b.plan.spread_before_percent)
                    << " points: " << (b.waiting.empty() ? b.plan.summary : b.waiting) << "\n";
          rc = kExitRefused;
        }
      }
      return rc;
    }
    if (g_stop != 0) {
      std::cerr << "lds-host: stopped; the moves in flight go on in the brokers.\n";
      return kExitRefused;
    }
    if (args.timeout_seconds > 0 && std::chrono::steady_clock::now() > deadline) {
      std::cerr << "lds-host: still moving after " << args.timeout_seconds
                << " s; the moves in flight go on in the brokers (run it again to follow them).\n";
      return kExitRefused;
    }
    nap(args.poll_ms);
  }
}

// --daemon: a round every --interval, and every --poll-ms while moves are in flight, until
// SIGTERM or SIGINT. A round that fails (no broker answers) is logged and tried again.
int run_daemon(cluster::ClusterBalancer& balancer, const ClusterArgs& args) {
  RoundLines lines;
  while (g_stop == 0) {
    bool busy = false;
    try {
      const cluster::ClusterRound round = balancer.round();
      if (lines.wanted(round)) std::printf("%s %s\n", now_text().c_str(), round.summary().c_str());
      busy = !round.settled();
    } catch (const std::exception& e) {
      std::printf("%s Round failed: %s\n", now_text().c_str(), e.what());
    }
    std::fflush(stdout);
    nap(busy ? args.poll_ms : args.interval_seconds * 1000);
  }
  for (const std::string& line : balancer.totals()) {
    std::printf("%s %s\n", now_text().c_str(), line.c_str());
  }
  std::printf("%s Stopped; any move in flight goes on in its broker.\n", now_text().c_str());
  return kExitOk;
}

}  // namespace

void add_cluster_options(CLI::App* cmd, ClusterArgs& args, bool timeout_option) {
  cmd->add_option("--bootstrap-server", args.bootstrap_server,
                  "HOST:PORT[,HOST:PORT...] of Kafka listeners: balance the whole cluster through "
                  "Kafka's protocol instead of this broker's admin socket");
  cmd->add_option("--command-config", args.command_config,
                  "Kafka client properties file (PLAINTEXT only; request.timeout.ms, client.id)");
  cmd->add_option("--strategy", args.strategy,
                  "The strategy that ranks destinations (liblds_<name>.so)")
      ->capture_default_str();
  cmd->add_option("--strategy-option", args.strategy_options,
                  "KEY=VALUE for the strategy (its own keys, prefix removed); repeatable");
  cmd->add_option("--plugin-dir", args.plugin_dirs, "Where to look for the strategy first");
  cmd->add_option("--threshold", args.threshold_percent,
                  "The spread in points that calls for a round; the band is half of it")
      ->check(CLI::Range(0.1, 100.0));
  cmd->add_option("--max-concurrent-moves", args.max_concurrent_moves, "Moves in flight per broker")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--throttle", args.throttle,
                  "replica.alter.log.dirs.io.max.bytes.per.second to set on a broker while it "
                  "moves (deleted after), e.g. 10MiB");
  cmd->add_option("--interval", args.interval_seconds, "--daemon: seconds between rounds")
      ->check(CLI::Range(int64_t{1}, int64_t{86400}));
  cmd->add_option("--cooldown", args.cooldown_seconds,
                  "Seconds before the same partition is moved again")
      ->check(CLI::Range(int64_t{0}, int64_t{86400} * 30));
  cmd->add_option("--poll-ms", args.poll_ms, "How often progress is read while moves are in flight")
      ->check(CLI::Range(int64_t{50}, int64_t{600000}));
  if (timeout_option) {
    cmd->add_option("--timeout", args.timeout_seconds,
                    "--execute: give up waiting after this many seconds (0: no limit)");
  }
}

int run_cluster(const ClusterArgs& args, ClusterAction action, const std::string& drain_dir,
                bool json_output) {
  const std::vector<std::string> bootstrap = kafka::bootstrap_addresses(args.bootstrap_server);
  const kafka::ClientOptions options = client_options(args.command_config);
  cluster::ClusterBalanceSettings settings;
  settings.threshold_percent = args.threshold_percent;
  settings.max_concurrent_moves = args.max_concurrent_moves;
  if (!args.throttle.empty()) settings.throttle_bytes_per_sec = parse_bytes_option(args.throttle);
  settings.cooldown_ms = args.cooldown_seconds * 1000;
  settings.force = action != ClusterAction::kDaemon;
  if (action == ClusterAction::kDrain) {
    settings.only_broker = args.broker;
    settings.drain_dir = drain_dir;
  }
  std::vector<std::filesystem::path> extra(args.plugin_dirs.begin(), args.plugin_dirs.end());
  const auto strategy = cluster::load_cluster_strategy(
      sim::find_plugin_dir(args.strategy, sim::plugin_search_path(extra)), args.strategy,
      strategy_options(args));
  const bool daemon = action == ClusterAction::kDaemon;
  cluster::ClusterBalancer balancer(bootstrap, options, settings, strategy,
                                    [daemon](const std::string& line) {
                                      if (daemon) {
                                        std::printf("%s %s\n", now_text().c_str(), line.c_str());
                                      } else {
                                        std::printf("%s\n", line.c_str());
                                      }
                                      std::fflush(stdout);
                                    });

  g_stop = 0;
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGINT, on_stop_signal);
  switch (action) {
    case ClusterAction::kPlan: {
      const json plan = plan_json(balancer.plan());
      if (json_output) {
        std::cout << plan.dump(2) << "\n";
      } else {
        print_plan(plan);
      }
      return kExitOk;
    }
    case ClusterAction::kExecute:
      return run_until_settled(balancer, args, "");
    case ClusterAction::kDaemon:
      return run_daemon(balancer, args);
    case ClusterAction::kDrain: {
      const cluster::ClusterRound first = balancer.plan();
      const cluster::BrokerRound& b = first.brokers.at(0);
      if (!b.error.empty()) throw std::runtime_error(b.error);
      if (!b.waiting.empty()) {
        std::cerr << "lds-host: the drain of " << drain_dir << " on broker " << b.id
                  << " is refused: " << b.waiting << "\n";
        return kExitRefused;
      }
      balancer.cordon(args.broker, drain_dir);
      return run_until_settled(balancer, args, drain_dir);
    }
  }
  return kExitUsage;
}

}  // namespace lds::cli
