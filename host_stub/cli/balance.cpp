// balance.cpp: `lds-host balance` (--plan, --execute, --status, --cancel) and `lds-host drain`:
// the intra-broker balancer's operator surface, over DescribeBalance, Balance and DrainLogDir;
// with --bootstrap-server, the cluster balancer's (cli/cluster_balance.h).
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "admin/admin_client.h"
#include "cli/client.h"
#include "cli/cluster_balance.h"
#include "cli/command.h"
#include "cli/output.h"
#include "cli/progress_bar.h"

namespace lds::cli {
namespace {

using nlohmann::json;

std::string pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", v);
  return buf;
}

int print_plan_of(const json& r) {
  const json& p = r["plan"];
  std::printf("Ideal fill %s, spread %.1f points (threshold %.1f): %s\n",
              pct(p.value("idealFillPercent", 0.0)).c_str(), p.value("spreadPercentBefore", 0.0),
              p.value("thresholdPercent", 0.0), p.value("summary", "").c_str());
  const json& dirs = p["logDirs"];
  if (!p["moves"].empty()) {
    std::printf("%-24s %-32s %-32s %11s\n", "PARTITION", "FROM", "TO", "BYTES");
    for (const auto& m : p["moves"]) {
      const std::string name = m.value("topic", "") + "-" + std::to_string(m.value("partition", 0));
      std::printf("%-24s %-32s %-32s %11s\n", name.c_str(), m.value("from", "").c_str(),
                  m.value("to", "").c_str(), human_bytes(m.value("bytes", 0ull)).c_str());
    }
  }
  std::printf("Moves %zu, %s against a lower bound of %s\n", p["moves"].size(),
              human_bytes(p.value("plannedBytes", 0ull)).c_str(),
              human_bytes(p.value("lowerBoundBytes", 0ull)).c_str());
  std::printf("%-40s %8s %8s\n", "LOG DIR", "BEFORE", "AFTER");
  for (const auto& d : dirs) {
    if (!d.value("eligible", false)) {
      std::printf("%-40s %8s %8s\n", d.value("logDir", "").c_str(), "-", "-");
      continue;
    }
    std::printf("%-40s %8s %8s\n", d.value("logDir", "").c_str(),
                pct(d.value("fillPercentBefore", 0.0)).c_str(),
                pct(d.value("fillPercentAfter", 0.0)).c_str());
  }
  return 0;
}

int print_status(const json& r) {
  std::printf("Balancer %s: spread %.1f points (threshold %.1f), ideal fill %s\n",
              r.value("state", "?").c_str(), r.value("spreadPercent", 0.0),
              r.value("thresholdPercent", 0.0), pct(r.value("idealFillPercent", 0.0)).c_str());
  std::printf("Since start: %llu rounds, %llu moves, %s moved (lower bounds %s)\n",
              static_cast<unsigned long long>(r.value("rounds", 0ull)),
              static_cast<unsigned long long>(r.value("moves", 0ull)),
              human_bytes(r.value("bytesMoved", 0ull)).c_str(),
              human_bytes(r.value("lowerBoundBytes", 0ull)).c_str());
  if (r.contains("draining") && r["draining"].is_string()) {
    std::printf("Draining %s: %s left of %s\n", r["draining"].get<std::string>().c_str(),
                human_bytes(r.value("drainBytesLeft", 0ull)).c_str(),
                human_bytes(r.value("drainBytes", 0ull)).c_str());
  }
  if (!r.value("lastRound", std::string()).empty()) {
    std::printf("Last plan: %s\n", r.value("lastRound", "").c_str());
  }
  if (r.contains("waiting") && r["waiting"].is_string()) {
    std::printf("Waiting: %s\n", r["waiting"].get<std::string>().c_str());
  }
  std::printf("Moves in flight: %zu (%llu planned)\n", r["inFlight"].size(),
              static_cast<unsigned long long>(r.value("planned", 0ull)));
  for (const auto& m : r["inFlight"]) {
    const uint64_t size = m.value("size", 0ull), copied = m.value("copied", 0ull);
    const double done =
        size > 0 ? 100.0 * static_cast<double>(copied) / static_cast<double>(size) : 100.0;
    const std::string name = m.value("topic", "") + "-" + std::to_string(m.value("partition", 0));
    std::printf("  %-24s %s -> %s  %s of %s (%s)\n", name.c_str(), m.value("from", "").c_str(),
                m.value("to", "").c_str(), human_bytes(copied).c_str(), human_bytes(size).c_str(),
                pct(done).c_str());
  }
  return 0;
}

int print_cancelled(const json& r) {
  std::printf("Balance round cancelled: %llu moves stopped.\n",
              static_cast<unsigned long long>(r.value("cancelled", 0ull)));
  return 0;
}

int print_drain(const json& r) {
  std::printf("Draining %s: %zu moves of %s.\n", r.value("logDir", "").c_str(), r["moves"].size(),
              human_bytes(r.value("bytes", 0ull)).c_str());
  return 0;
}

struct BalanceArgs {
  Target target;
  ClusterArgs cluster;
  bool plan = false, execute = false, status = false, cancel = false, daemon = false;
};

struct DrainArgs {
  Target target;
  ClusterArgs cluster;
  std::string dir;
  bool wait = false;
  int timeout_seconds = 0;
};

// Polls DescribeBalance until the drain is over, with a progress bar of the bytes left.
int wait_for_drain(const DrainArgs& args, uint64_t total) {
  AdminClient client(socket_of(args.target));
  ProgressBar bar(ProgressBar::stderr_is_terminal(), std::chrono::milliseconds(0));
  bar.start("drain " + args.dir, total, ProgressBar::Unit::kBytes);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(args.timeout_seconds);
  for (;;) {
    const json r = json::parse(client.call(json{{"api", "DescribeBalance"}}.dump()));
    if (r.value("error", kUnknownServerError) != kNone) {
      std::cerr << "lds-host: " << r.value("message", "") << "\n";
      return kExitRefused;
    }
    const uint64_t left = r.value("drainBytesLeft", 0ull);
    bar.update(total - std::min(total, left));
    if (!r["draining"].is_string()) {
      // The drain is over: the dir is empty, or it stopped short. The broker says how it ended
      // ("Drain of /d1 stopped: 3 replicas (24.0 MiB) remain on it, now offline: ...").
      const json last = r.value("lastDrain", json());
      if (last.is_object() && last.value("logDir", "") == args.dir &&
          last.value("result", "") != "drained") {
        bar.stop();
        std::cerr << "lds-host: " << last.value("message", "") << "\n";
        return kExitRefused;
      }
      // Whatever the broker says, the dir must hold no replica: none listed, none unreadable.
      const json d = json::parse(client.call(json{{"api", "DescribeLogDirs"}}.dump()));
      for (const auto& broker : d["brokers"]) {
        for (const auto& dir : broker["logDirs"]) {
          if (dir.value("logDir", "") != args.dir) continue;
          const size_t remaining =
              dir["partitions"].size() + dir.value("unreadablePartitions", json::array()).size();
          if (remaining > 0) {
            bar.stop();
            std::cerr << "lds-host: the drain of " << args.dir << " stopped with " << remaining
                      << " partitions left; see the broker's log.\n";
            return kExitRefused;
          }
        }
      }
      bar.finish();
      // Retiring the disk is what usually follows; its cordon is pruned at that restart. With
      // --json, stdout holds the DrainLogDir response alone.
      std::fprintf(args.target.json ? stderr : stdout,
                   "Drained %s. Next: remove it from log.dirs and restart the broker.\n",
                   args.dir.c_str());
      return kExitOk;
    }
    if (r.contains("waiting") && r["waiting"].is_string()) {
      // Nothing can move until something changes: waiting on would look like a hang.
      bar.stop();
      std::cerr << "lds-host: " << r["waiting"].get<std::string>() << "\n";
      return kExitRefused;
    }
    if (args.timeout_seconds > 0 && std::chrono::steady_clock::now() > deadline) {
      std::cerr << "lds-host: the drain of " << args.dir << " is still running after "
                << args.timeout_seconds << " s; it goes on in the broker.\n";
      return kExitRefused;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

}  // namespace

Command add_balance_command(CLI::App& app) {
  auto args = std::make_shared<BalanceArgs>();
  auto* cmd = app.add_subcommand("balance",
                                 "Plan, run, watch or stop a round of the intra-broker balancer");
  add_target_options(cmd, args->target);
  auto* plan = cmd->add_flag("--plan", args->plan,
                             "Dry run: the moves, their bytes against the lower bound, and each "
                             "dir's fill before and after; changes nothing");
  auto* execute = cmd->add_flag("--execute", args->execute, "Run one round now");
  auto* status = cmd->add_flag("--status", args->status,
                               "State, moves in flight with progress, bytes moved since start");
  auto* cancel = cmd->add_flag("--cancel", args->cancel, "Stop the round");
  auto* daemon = cmd->add_flag("--daemon", args->daemon,
                               "With --bootstrap-server: keep the cluster level, a round every "
                               "--interval, until SIGTERM");
  plan->excludes(execute, status, cancel, daemon);
  execute->excludes(status, cancel, daemon);
  status->excludes(cancel, daemon);
  cancel->excludes(daemon);
  add_cluster_options(cmd, args->cluster);
  return {
      cmd, [args] {
        if (!args->cluster.bootstrap_server.empty()) {
          if (args->status || args->cancel) {
            throw CLI::ValidationError("--bootstrap-server",
                                       "--status and --cancel are for one broker's own balancer "
                                       "(--config or --socket); use --plan, --execute or --daemon");
          }
          if (!args->plan && !args->execute && !args->daemon) {
            throw CLI::ValidationError("--bootstrap-server", "say --plan, --execute or --daemon");
          }
          const ClusterAction action = args->plan      ? ClusterAction::kPlan
                                       : args->execute ? ClusterAction::kExecute
                                                       : ClusterAction::kDaemon;
          return run_cluster(args->cluster, action, "", args->target.json);
        }
        if (args->daemon) {
          throw CLI::ValidationError("--daemon",
                                     "needs --bootstrap-server; a broker's own balancer runs by "
                                     "itself with log.dir.balance.enable=true");
        }
        if (args->plan) {
          return call(args->target, {{"api", "Balance"}, {"action", "plan"}}, print_plan_of);
        }
        if (args->execute) {
          return call(args->target, {{"api", "Balance"}, {"action", "execute"}}, print_plan_of);
        }
        if (args->cancel) {
          return call(args->target, {{"api", "Balance"}, {"action", "cancel"}}, print_cancelled);
        }
        return call(args->target, {{"api", "DescribeBalance"}}, print_status);
      }};
}

Command add_drain_command(CLI::App& app) {
  auto args = std::make_shared<DrainArgs>();
  auto* cmd = app.add_subcommand(
      "drain",
      "Cordon a log directory and move every replica off it (refused up front when the "
      "other directories cannot hold its data)");
  add_target_options(cmd, args->target);
  cmd->add_option("--dir", args->dir, "The log directory to empty")->required();
  cmd->add_flag("--wait", args->wait, "Wait until it is empty, with a progress bar");
  add_cluster_options(cmd, args->cluster, false);
  cmd->add_option("--broker", args->cluster.broker,
                  "With --bootstrap-server: the id of the broker whose dir to drain");
  cmd->add_option("--timeout", args->timeout_seconds,
                  "With --wait or --bootstrap-server: give up waiting after this many seconds "
                  "(default: no limit)");
  return {cmd, [args] {
            if (!args->cluster.bootstrap_server.empty()) {
              if (args->cluster.broker < 0) {
                throw CLI::ValidationError("--broker", "--bootstrap-server needs --broker N");
              }
              args->cluster.timeout_seconds = args->timeout_seconds;
              return run_cluster(args->cluster, ClusterAction::kDrain, args->dir, false);
            }
            if (args->cluster.broker >= 0) {
              throw CLI::ValidationError("--broker", "needs --bootstrap-server");
            }
            uint64_t total = 0;
            int rc = kExitOk;
            try {
              AdminClient client(socket_of(args->target));
              const json r = json::parse(
                  client.call(json{{"api", "DrainLogDir"}, {"logDir", args->dir}}.dump()));
              if (r.value("error", kUnknownServerError) != kNone) {
                if (args->target.json) std::cout << r.dump(2) << "\n";
                std::cerr << "lds-host: " << r.value("error", "") << ": " << r.value("message", "")
                          << "\n";
                return kExitRefused;
              }
              if (args->target.json) {
                std::cout << r.dump(2) << "\n";
              } else {
                print_drain(r);
              }
              total = r.value("bytes", 0ull);
              if (args->wait) args->dir = r.value("logDir", args->dir);
            } catch (const CLI::Error&) {
              throw;
            } catch (const std::exception& e) {
              std::cerr << "lds-host: " << e.what() << "\n";
              return kExitUsage;
            }
            if (args->wait) rc = wait_for_drain(*args, total);
            return rc;
          }};
}

}  // namespace lds::cli
