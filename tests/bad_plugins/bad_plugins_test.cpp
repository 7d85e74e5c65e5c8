// bad_plugins_test.cpp: every broken plugin of tests/bad_plugins is refused at load, at a swap and
// at startup with one sentence naming the file and the fault; run-time rank faults fall back to the
// built-in order per call, logged and counted, and the placements still succeed. A plugin that
// never answers is refused within plugin.validation.timeout.ms, and SIGTERM still stops a server
// that has a thread stuck inside a plugin.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "admin/admin_api.h"
#include "admin/unix_socket.h"
#include "broker/broker.h"
#include "host_test_support.h"
#include "server_fixture.h"
#include "strategy/strategy_plugin.h"
#include "util/errors.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

using integration::ProcessResult;
using integration::ServerConfig;
using nlohmann::json;

const fs::path kBadPluginDir = LDS_BAD_PLUGIN_DIR;

// The host's error buffers: 512 bytes for create and the dry run, 256 for a placement's rank.
const std::string kLoadErrorText(511, 'x');
const std::string kRankErrorText(255, 'x');

class BadPluginTest : public integration::ServerFixture {
 protected:
  void SetUp() override {
    ServerFixture::SetUp();
    plugins_ = make_dir("plugins");
    ::chmod(plugins_.c_str(), 0755);
    install(integration::build_plugin_dir() / "liblds_partition.so");
  }

  // Copies a plugin file into this test's plugin.dir (mode 0755, owned by us: safe to load).
  void install(const fs::path& file) {
    const fs::path to = plugins_ / file.filename();
    fs::copy_file(file, to, fs::copy_options::overwrite_existing);
    ::chmod(to.c_str(), 0755);
  }
  fs::path install_bad(const std::string& name) {
    install(kBadPluginDir / ("liblds_" + name + ".so"));
    return plugins_ / ("liblds_" + name + ".so");
  }

  // A config for `strategy` over three log dirs of the temp folder, with this test's plugin.dir.
  fs::path config_for(const std::string& strategy, const std::string& file_name = "broker.toml") {
    ServerConfig c = default_config(3, strategy);
    c.plugin_dir = plugins_;
    config_ = c;
    return write_config(c, temp_ / file_name);
  }

  std::string load_error(const std::string& name) {
    StrategyLoadSpec spec;
    spec.plugin_dir = plugins_;
    spec.name = name;
    try {
      LoadedStrategy::load(spec);
    } catch (const PluginError& e) {
      return e.what();
    }
    return "loaded";
  }

  fs::path plugins_;
};

struct LoadFault {
  const char* name;
  std::string fault;  // the message after "Strategy plugin <file> "
};

std::vector<LoadFault> load_faults(const fs::path& plugins) {
  const std::string v1 = std::to_string(offsetof(lds_strategy, rank) + sizeof(lds_strategy::rank));
  const std::string host = std::to_string(LDS_ABI_MAJOR) + "." + std::to_string(LDS_ABI_MINOR);
  const std::string handshake =
      std::to_string(LDS_ABI_MAJOR) + ", " + std::to_string(LDS_ABI_MINOR);
  const std::string short_size = std::to_string(offsetof(lds_strategy, rank));
  return {
      {"bad_not_elf", "is not a loadable shared object: " +
                          (plugins / "liblds_bad_not_elf.so").string() + ": invalid ELF header."},
      {"bad_no_entry", "does not export lds_strategy_get."},
      {"bad_null_descriptor",
       "refused this host of ABI " + host + ": lds_strategy_get(" + handshake +
           ") returned NULL, so it needs another ABI version than this host speaks."},
      {"bad_wrong_major", "was built for ABI major 2, this host speaks 1."},
      {"bad_short_struct", "has a descriptor struct_size of " + short_size +
                               " bytes, smaller than the " + v1 + " of ABI version 1.0."},
      {"bad_wrong_name",
       "names itself 'somebody_else', not 'bad_wrong_name' as its file name says."},
      {"bad_null_create", "has a NULL create function."},
      {"bad_null_destroy", "has a NULL destroy function."},
      {"bad_null_rank", "has a NULL rank function."},
      {"bad_create_fails",
       "failed to create its instance (status 4): cannot reach the disk inventory service at "
       "10.0.0.7:8080."},
      {"bad_create_unterminated", "rejected its options: " + kLoadErrorText + "."},
      {"bad_dry_run_unterminated",
       "failed its dry-run rank with status 4: " + kLoadErrorText + "."},
  };
}

void expect_one_sentence(const std::string& message) {
  ASSERT_FALSE(message.empty());
  EXPECT_EQ(message.back(), '.') << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST_F(BadPluginTest, EachLoadTimeFaultIsRefusedWithOneSentenceNamingFileAndFault) {
  for (const LoadFault& f : load_faults(plugins_)) {
    SCOPED_TRACE(f.name);
    const fs::path file = install_bad(f.name);
    const std::string error = load_error(f.name);
    EXPECT_EQ(error, "Strategy plugin " + file.string() + " " + f.fault);
    expect_one_sentence(error);
  }
}

TEST_F(BadPluginTest, ATruncatedPluginIsRefusedInsteadOfFaultingInTheLoader) {
  const fs::path file = install_bad("bad_truncated");
  const std::string error = load_error("bad_truncated");
  const std::string prefix =
      "Strategy plugin " + file.string() + " is not a loadable shared object: it is truncated: ";
  EXPECT_EQ(error.substr(0, prefix.size()), prefix) << error;
  const std::string suffix = ", past the end of the 4096-byte file.";
  ASSERT_GT(error.size(), suffix.size());
  EXPECT_EQ(error.substr(error.size() - suffix.size()), suffix) << error;
  expect_one_sentence(error);
}

TEST_F(BadPluginTest, TheSameCodeWithoutAFaultLoads) {
  install_bad("bad_valid");
  EXPECT_EQ(load_error("bad_valid"), "loaded");
}

TEST_F(BadPluginTest, ASwapToABrokenPluginIsRefusedAndThePreviousStrategyStays) {
  std::vector<LoadFault> faults = load_faults(plugins_);
  faults.push_back({"bad_truncated", ""});
  const fs::path config = config_for("partition");
  Broker broker(config);
  broker.start();
  const StrategyInfo before = broker.strategy_info();
  int partition = 0;
  for (const LoadFault& f : faults) {
    SCOPED_TRACE(f.name);
    const fs::path file = install_bad(f.name);
    test::LogCapture logs("lds.broker");
    std::string refusal;
    try {
      broker.alter_configs({{"log.directory.select.strategy", ConfigAlteration::Op::kSet, f.name}},
                           ConfigChangeSource::kAdminApi);
      ADD_FAILURE() << "the swap to " << f.name << " was accepted";
    } catch (const KafkaError& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidConfig);
      refusal = e.what();
    }
    if (!f.fault.empty()) {
      EXPECT_EQ(refusal, "Strategy plugin " + file.string() + " " + f.fault);
    } else {
      EXPECT_NE(refusal.find(file.string() + " is not a loadable shared object"), std::string::npos)
          << refusal;
    }
    EXPECT_NE(logs.text().find("Configuration change refused, strategy partition stays active"),
              std::string::npos)
        << logs.text();
    const StrategyInfo now = broker.strategy_info();
    EXPECT_EQ(now.name, "partition");
    EXPECT_EQ(now.generation, before.generation);
    EXPECT_EQ(now.swaps, 0u);
    EXPECT_EQ(broker.config().strategy, "partition");
    // The previous strategy still places partitions.
    PlacementResult placed = broker.logs().create_partition("after-refusal", partition++);
    EXPECT_TRUE(placed.created);
    EXPECT_EQ(placed.strategy, "partition");
  }
  EXPECT_FALSE(fs::exists(fs::path(config.string() + ".dynamic"))) << "a refused swap was saved";
}

TEST_F(BadPluginTest, StartingWithABrokenPluginExitsWithCode2AndOneLine) {
  std::vector<LoadFault> faults = load_faults(plugins_);
  faults.push_back({"bad_truncated", ""});
  for (const LoadFault& f : faults) {
    SCOPED_TRACE(f.name);
    const fs::path file = install_bad(f.name);
    const fs::path config = config_for(f.name);
    ProcessResult r = run_host({"serve", "--config", config.string()});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    if (!f.fault.empty()) {
      EXPECT_EQ(r.err, "lds-host: Strategy plugin " + file.string() + " " + f.fault + "\n");
    } else {
      EXPECT_EQ(r.err.rfind("lds-host: Strategy plugin " + file.string() +
                                " is not a loadable shared object: it is truncated: ",
                            0),
                0u)
          << r.err;
    }
    EXPECT_FALSE(fs::exists(fs::symlink_status(socket_))) << "a refused start left a socket";
  }
}

struct RankFault {
  const char* name;
  // The logged reason for the fallback, for three candidate directories; "#" stands for the
  // index the plugin repeats (the emptiest directory: partition p goes to p % 3).
  std::string why;
  std::string for_partition(int32_t p) const {
    std::string out = why;
    if (auto at = out.find('#'); at != std::string::npos) out.replace(at, 1, std::to_string(p % 3));
    return out;
  }
};

std::vector<RankFault> rank_faults() {
  return {
      {"bad_rank_out_of_range",
       "strategy bad_rank_out_of_range returned an invalid ranking: index 9 is out of range for 3 "
       "directories"},
      {"bad_rank_duplicate",
       "strategy bad_rank_duplicate returned an invalid ranking: index # appears twice"},
      {"bad_rank_too_long",
       "strategy bad_rank_too_long returned an invalid ranking: order_len 4 exceeds the 3 "
       "candidate "
       "directories"},
      {"bad_rank_error",
       "strategy bad_rank_error failed with status 4: the placement service timed out"},
      {"bad_rank_unterminated",
       "strategy bad_rank_unterminated failed with status 4: " + kRankErrorText},
  };
}

TEST_F(BadPluginTest, RunTimeRankFaultsFallBackPerCallLoggedAndCounted) {
  for (const RankFault& f : rank_faults()) {
    SCOPED_TRACE(f.name);
    install_bad(f.name);
    const fs::path config = config_for(f.name, std::string(f.name) + ".toml");
    for (const fs::path& d : config_.log_dirs) fs::remove_all(d);
    Broker broker(config);
    broker.start();  // the dry run gets a valid answer, so the plugin loads
    ASSERT_EQ(broker.strategy_info().name, f.name);
    test::LogCapture logs("lds.placement");
    std::vector<size_t> where;
    for (int32_t p = 0; p < 6; ++p) {
      PlacementResult placed = broker.logs().create_partition("t", p);
      EXPECT_TRUE(placed.created);
      EXPECT_TRUE(placed.fell_back);
      // Who really placed it, and why the plugin's answer was not used.
      std::string refusal = f.for_partition(p);
      for (const std::string& prefix :
           {"strategy " + std::string(f.name) + " returned an invalid ranking: ",
            "strategy " + std::string(f.name) + " failed with "}) {
        if (refusal.rfind(prefix, 0) == 0) refusal.erase(0, prefix.size());
      }
      EXPECT_EQ(placed.strategy,
                "partition-count fallback (" + std::string(f.name) + ": " + refusal + ")");
      where.push_back(static_cast<size_t>(broker.logs().dir_index(placed.log_dir)));
      const std::string logged =
          f.for_partition(p) + " (generation 1); using the built-in partition-count order for t-" +
          std::to_string(p) + ".";
      EXPECT_NE(logs.text().find(logged), std::string::npos) << logs.text();
    }
    // The built-in order: fewest partitions first, log.dirs order on ties.
    EXPECT_EQ(where, (std::vector<size_t>{0, 1, 2, 0, 1, 2}));
    EXPECT_EQ(broker.slot().fallbacks(), 6u);
    EXPECT_EQ(broker.strategy_info().fallbacks, 6u);
    EXPECT_EQ(broker.logs().append("t", 0, 1000), 1000u);
    AdminApi api(broker);
    json describe = json::parse(api.handle_line(R"({"api":"DescribeLogDirs"})"));
    EXPECT_EQ(describe["strategy"]["name"], f.name);
    EXPECT_EQ(describe["strategy"]["fallbacks"], 6);
    // Fallbacks are counted per generation: the next strategy starts at 0.
    broker.alter_configs(
        {{"log.directory.select.strategy", ConfigAlteration::Op::kSet, "partition"}},
        ConfigChangeSource::kAdminApi);
    EXPECT_EQ(broker.strategy_info().fallbacks, 0u);
    EXPECT_EQ(broker.slot().fallbacks(), 6u);
  }
}

TEST_F(BadPluginTest, RunTimeRankFaultsThroughTheServerStillPlaceEveryPartition) {
  for (const RankFault& f : rank_faults()) {
    SCOPED_TRACE(f.name);
    install_bad(f.name);
    ServerConfig c = default_config(3, f.name);
    c.plugin_dir = plugins_;
    for (const fs::path& d : c.log_dirs) fs::remove_all(d);
    ASSERT_NO_FATAL_FAILURE(start(c));
    json created =
        call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0, 1, 2, 3}}});
    for (const auto& p : created["partitions"]) {
      EXPECT_EQ(p["error"], "NONE") << p.dump();
      EXPECT_EQ(p["created"], true) << p.dump();
    }
    call_ok({{"api", "Produce"}, {"topic", "t"}, {"partition", 3}, {"bytes", 100}});
    // lds-host create names the partition and who really placed it.
    ProcessResult r =
        run_host({"create", "--socket", socket_.string(), "--topic", "u", "--partition-ids", "0"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("u-0 -> ", 0), 0u) << r.out;
    // "partition-count fallback (<plugin>: <why its answer was refused>)", in the text and in
    // --json alike: the refusal is the logged reason after "returned an invalid ranking: " or
    // "failed with ", its "#" the index the plugin repeated.
    const std::string why = f.for_partition(0);
    const size_t cut = why.find("invalid ranking: ") != std::string::npos
                           ? why.find("invalid ranking: ") + 17
                           : why.find("failed with ") + 12;
    std::string refusal = f.why.substr(cut);
    const size_t hash = refusal.find('#');
    const std::string head = "partition-count fallback (" + std::string(f.name) + ": " +
                             refusal.substr(0, hash == std::string::npos ? refusal.size() : hash);
    const std::string tail =
        (hash == std::string::npos ? std::string() : refusal.substr(hash + 1)) + ")";
    const auto names_the_fallback = [&](const std::string& strategy) {
      const size_t digits = hash == std::string::npos ? 0 : 1;
      return strategy.size() == head.size() + digits + tail.size() && strategy.starts_with(head) &&
             strategy.ends_with(tail);
    };
    const size_t open = r.out.find("(strategy ");
    ASSERT_NE(open, std::string::npos) << r.out;
    EXPECT_TRUE(r.out.ends_with(")\n")) << r.out;
    EXPECT_TRUE(names_the_fallback(r.out.substr(open + 10, r.out.size() - open - 12))) << r.out;
    r = run_host(
        {"create", "--socket", socket_.string(), "--topic", "v", "--partition-ids", "0", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const json answer = json::parse(r.out, nullptr, false);
    ASSERT_TRUE(answer.is_object()) << r.out;
    EXPECT_TRUE(names_the_fallback(answer["partitions"][0].value("strategy", ""))) << r.out;
    json describe = call_ok({{"api", "DescribeLogDirs"}});
    EXPECT_EQ(describe["strategy"]["name"], f.name);
    EXPECT_EQ(describe["strategy"]["fallbacks"], 6);
    ASSERT_NO_FATAL_FAILURE(stop());
    EXPECT_NE(server_log().find(f.for_partition(0)), std::string::npos)
        << "the fallback is not logged";
  }
}

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// Whether this test process runs under Valgrind (the memcheck stage runs this suite so).
bool this_process_under_valgrind() {
  const char* preload = std::getenv("LD_PRELOAD");
  return preload != nullptr && std::string(preload).find("vgpreload") != std::string::npos;
}

// How much longer than its timeout a refused load may take: the copy, the checks and the thread,
// in this process; and the same plus starting a server, or a round trip to one, in another.
// Valgrind slows everything but the timeout itself.
milliseconds load_overhead(bool valgrind) { return milliseconds(valgrind ? 5000 : 700); }
milliseconds server_overhead(bool valgrind) { return milliseconds(valgrind ? 20000 : 1500); }

struct HangFault {
  const char* name;
  const char* what;  // what the refusal says the plugin did not do
};

const HangFault kHangFaults[] = {
    {"bad_rank_hangs_in_dry_run", "answer its dry-run rank"},
    {"bad_create_hangs", "return from create"},
};

std::string hang_refusal(const fs::path& file, const std::string& what, int timeout_ms) {
  return "Strategy plugin " + file.string() + " did not " + what + " within " +
         std::to_string(timeout_ms) +
         " ms (plugin.validation.timeout.ms); it stays loaded but unused, since a thread is still "
         "inside it.";
}

const DescribedConfig* find_config(const std::vector<DescribedConfig>& configs,
                                   const std::string& name) {
  for (const DescribedConfig& c : configs) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

TEST_F(BadPluginTest, ASwapToAPluginThatNeverAnswersIsRefusedWithinTheTimeout) {
  const fs::path config = config_for("partition");
  Broker broker(config);
  broker.start();
  broker.alter_configs({{"plugin.validation.timeout.ms", ConfigAlteration::Op::kSet, "300"}},
                       ConfigChangeSource::kAdminApi);
  int partition = 0;
  for (const HangFault& f : kHangFaults) {
    SCOPED_TRACE(f.name);
    const fs::path file = install_bad(f.name);
    test::LogCapture broker_log("lds.broker");
    test::LogCapture plugin_log("lds.plugin");
    const size_t inside_before = LoadedStrategy::threads_inside();
    const auto started = steady_clock::now();
    std::string refusal;
    try {
      broker.alter_configs({{"log.directory.select.strategy", ConfigAlteration::Op::kSet, f.name}},
                           ConfigChangeSource::kAdminApi);
      ADD_FAILURE() << "the swap to " << f.name << " was accepted";
    } catch (const KafkaError& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidConfig);
      refusal = e.what();
    }
    const auto elapsed = steady_clock::now() - started;
    EXPECT_EQ(refusal, hang_refusal(file, f.what, 300));
    EXPECT_GE(elapsed, milliseconds(300));
    EXPECT_LT(elapsed, milliseconds(300) + load_overhead(this_process_under_valgrind()));
    // The thread is left inside the plugin, which stays mapped; the error is logged.
    EXPECT_EQ(LoadedStrategy::threads_inside(), inside_before + 1);
    EXPECT_NE(plugin_log.text().find("Gave up on strategy plugin " + file.string()),
              std::string::npos)
        << plugin_log.text();
    EXPECT_NE(broker_log.text().find("Configuration change refused, strategy partition stays "
                                     "active: " +
                                     refusal),
              std::string::npos)
        << broker_log.text();

    // The old strategy still places partitions, and the control lock is free again.
    const StrategyInfo now = broker.strategy_info();
    EXPECT_EQ(now.name, "partition");
    EXPECT_EQ(now.swaps, 0u);
    PlacementResult placed = broker.logs().create_partition("after-hang", partition++);
    EXPECT_TRUE(placed.created);
    EXPECT_EQ(placed.strategy, "partition");
    const std::vector<DescribedConfig> described = broker.describe_configs();
    const DescribedConfig* strategy = find_config(described, "log.directory.select.strategy");
    ASSERT_NE(strategy, nullptr);
    EXPECT_EQ(strategy->value, "partition");
    const DescribedConfig* timeout = find_config(described, "plugin.validation.timeout.ms");
    ASSERT_NE(timeout, nullptr);
    EXPECT_EQ(timeout->value, "300");
    EXPECT_EQ(timeout->source, "DYNAMIC");
  }
  // Later swaps still go through.
  broker.alter_configs({{"log.directory.select.strategy", ConfigAlteration::Op::kSet, "partition"}},
                       ConfigChangeSource::kAdminApi);
  EXPECT_EQ(broker.strategy_info().swaps, 1u);
}

TEST_F(BadPluginTest, StartingWithAPluginThatNeverAnswersExitsWithCode2WithinTheTimeout) {
  for (const HangFault& f : kHangFaults) {
    SCOPED_TRACE(f.name);
    const fs::path file = install_bad(f.name);
    ServerConfig c = default_config(3, f.name);
    c.plugin_dir = plugins_;
    c.extra_lines = {"plugin.validation.timeout.ms = 300"};
    const fs::path config = write_config(c);
    const auto started = steady_clock::now();
    ProcessResult r = run_host({"serve", "--config", config.string()});
    EXPECT_LT(steady_clock::now() - started, milliseconds(300) + server_overhead(false));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    const std::string last_line = "lds-host: " + hang_refusal(file, f.what, 300) + "\n";
    ASSERT_GE(r.err.size(), last_line.size()) << r.err;
    EXPECT_EQ(r.err.substr(r.err.size() - last_line.size()), last_line) << r.err;
    EXPECT_FALSE(fs::exists(fs::symlink_status(socket_))) << "a refused start left a socket";
  }
}

TEST_F(BadPluginTest, ThroughTheServerAHangingSwapIsRefusedAndSigtermStillStopsTheServer) {
  const fs::path file = install_bad("bad_rank_hangs_in_dry_run");
  ServerConfig c = default_config(3, "partition");
  c.plugin_dir = plugins_;
  c.extra_lines = {"plugin.validation.timeout.ms = 1000"};
  ASSERT_NO_FATAL_FAILURE(start(c));

  const auto started = steady_clock::now();
  json refused = call(
      {{"api", "IncrementalAlterConfigs"},
       {"configs",
        {{{"name", "log.directory.select.strategy"}, {"value", "bad_rank_hangs_in_dry_run"}}}}});
  const auto elapsed = steady_clock::now() - started;
  EXPECT_EQ(refused["error"], "INVALID_CONFIG") << refused.dump();
  EXPECT_EQ(refused["message"], hang_refusal(file, "answer its dry-run rank", 1000));
  EXPECT_GE(elapsed, milliseconds(1000));
  EXPECT_LT(elapsed, milliseconds(1000) + server_overhead(under_valgrind()));

  // The broker is not stuck: configs are described, partitions placed, and a later swap accepted.
  json described = call_ok({{"api", "DescribeConfigs"}});
  bool strategy_listed = false;
  for (const auto& entry : described["configs"]) {
    if (entry["name"] == "log.directory.select.strategy") {
      EXPECT_EQ(entry["value"], "partition");
      strategy_listed = true;
    }
  }
  EXPECT_TRUE(strategy_listed) << described.dump();
  json created = call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0, 1}}});
  for (const auto& p : created["partitions"]) EXPECT_EQ(p["error"], "NONE") << p.dump();
  call_ok({{"api", "IncrementalAlterConfigs"},
           {"configs", {{{"name", "log.directory.select.strategy"}, {"value", "partition"}}}}});
  EXPECT_EQ(call_ok({{"api", "DescribeLogDirs"}})["strategy"]["swaps"], 1);

  // stop() fails the test unless SIGTERM ends the server with status 0 within 10 s.
  ASSERT_NO_FATAL_FAILURE(stop());
  const std::string log = server_log();
  EXPECT_NE(log.find("Stopped; 1 threads were still inside strategy plugins and were abandoned."),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("Stopped cleanly."), std::string::npos) << log;
}

// A connection that sends one request and never reads the answer.
class SentRequest {
 public:
  SentRequest(const fs::path& socket, const json& request) {
    const sockaddr_un addr = unix_socket::address_of(socket);
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    connected_ = fd_ >= 0 &&
                 ::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 &&
                 unix_socket::send_all(fd_, request.dump() + "\n");
  }
  ~SentRequest() {
    if (fd_ >= 0) ::close(fd_);
  }
  SentRequest(const SentRequest&) = delete;
  SentRequest& operator=(const SentRequest&) = delete;
  bool sent() const { return connected_; }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

TEST_F(BadPluginTest, SigtermStopsTheServerWhileAHandlerIsStuckInsideAPlugin) {
  install_bad("bad_rank_hangs");
  ServerConfig c = default_config(3, "bad_rank_hangs");
  c.plugin_dir = plugins_;
  ASSERT_NO_FATAL_FAILURE(start(c));

  // Placing topic "hang" never returns from rank, so its handler thread is stuck for good.
  SentRequest stuck(socket_, {{"api", "CreatePartitions"}, {"topic", "hang"}, {"partitions", {0}}});
  ASSERT_TRUE(stuck.sent());
  const auto deadline = steady_clock::now() + std::chrono::seconds(under_valgrind() ? 60 : 10);
  while (server_log().find("rank hangs for hang-0") == std::string::npos &&
         steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  ASSERT_NE(server_log().find("rank hangs for hang-0"), std::string::npos) << server_log();
  // The other handlers still answer.
  call_ok({{"api", "DescribeConfigs"}});

  const auto stopping = steady_clock::now();
  ASSERT_NO_FATAL_FAILURE(stop());
  // The admin server's shutdown grace (AdminServer::kStopGrace), then the process ends.
  EXPECT_GE(steady_clock::now() - stopping, std::chrono::seconds(5));
  const std::string log = server_log();
  EXPECT_NE(log.find("1 admin request handler(s) did not return within 5 s of shutdown"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("Stopped; 1 threads were still inside strategy plugins and were abandoned."),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("Stopped cleanly."), std::string::npos) << log;
}

}  // namespace
}  // namespace lds
