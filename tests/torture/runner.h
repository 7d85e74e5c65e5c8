// runner.h: plays a schedule against a real broker, keeps the model of what it acknowledged, and
// checks the invariants after every step and every restart.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "environment.h"
#include "filler_log.h"
#include "schedule.h"

namespace lds::torture {

using nlohmann::json;

// What a run found: "" when every invariant held, else the first violation, and the step it
// happened at (steps.size() for the final check).
struct Outcome {
  std::string violation;
  size_t step = 0;
  std::string stats;  // what the steps achieved: "created=5 acked=12345 ..."
  bool failed() const { return !violation.empty(); }
};

struct RunOptions {
  fs::path host;
  fs::path plugin_dir;
  // The test plugins of tests/bad_plugins, offered to strategy swaps beside the shipped ones;
  // empty: the shipped ones only.
  fs::path hostile_plugin_dir;
  // The "forbiddir" test strategy of tests/integration, for the swaps under queued balancer moves;
  // empty: those steps are skipped.
  fs::path forbid_plugin_dir;
  // kafka_produce.py, the Kafka client of the kafka-produce steps; empty: those steps are skipped.
  fs::path kafka_client;
  bool verbose = false;
};

// Sets up a fresh environment, plays `steps`, settles and checks at the end.
Outcome run_schedule(const std::vector<Step>& steps, const RunOptions& options);

class Runner {
 public:
  // The steps that need a plugin or a client of `options` are skipped when it is not given; the
  // environment must hold the plugins given.
  Runner(Environment& env, const RunOptions& options)
      : env_(env),
        hostile_plugins_(!options.hostile_plugin_dir.empty()),
        forbid_plugin_(!options.forbid_plugin_dir.empty()),
        kafka_client_(options.kafka_client),
        broken_(env.dir_count(), false) {}

  // What the steps achieved so far, as "name=count" pairs.
  std::string stats() const;
  // "" or the violation the step caused or revealed.
  std::string execute(const Step& step);
  // The checks that hold while moves run: alive, answers in time, no healthy dir offline.
  std::string quick_check(json* describe = nullptr);
  // quick_check(), and full_check() too when nothing is in flight.
  std::string step_check();
  // Waits (bounded) for moves to end, then checks every acknowledged byte on disk.
  std::string settled_check();

 private:
  struct Partition {
    std::string topic;
    int32_t number = 0;
    uint64_t acked = 0;  // bytes: the admin API's Produce answers, DescribeLogDirs after a client's
    std::map<int64_t, test::ClientRecord> client;  // what a Kafka client was told it wrote where
  };

  // One admin request, answered within 10 s; a CLIENT_FAILURE answer otherwise.
  json call(const json& request, std::string* problem);
  std::string set_config(const std::string& name, const std::string& value);
  // Index of a dir named in an answer, or dir_count() when it is none of ours.
  size_t dir_index(const std::string& path) const;
  std::vector<std::string> partition_names() const;
  std::string pick_partition(uint64_t r) const;
  // Checks done once no move is in flight: copies, bytes, leftovers, ghosts, reservations.
  std::string full_check();
  // Each model partition: one copy among the healthy dirs (`copies`: dir indexes by name), holding
  // its acknowledged bytes, listed there by `describe` with that size.
  std::string check_copies(const std::map<std::string, std::vector<size_t>>& copies,
                           const json& describe);
  // What a partition dir holds, for skipping a record check that passed on the same: `acked` and
  // its files, each with its inode, size and change time (which every write, rename and
  // truncation moves, and no process can set back); "" when it cannot be read. Taken before the
  // check it stands for, so a change during the check is seen at the next one.
  static std::string fingerprint(const fs::path& dir, uint64_t acked);
  // Whether the move marker `marker` names a source in a dir the schedule broke: a move whose
  // source could not be renamed aside keeps its marker in the new copy until a restart, which
  // finds the old copy again and knows by the marker which one is current.
  bool source_is_broken(const fs::path& marker) const;
  // Whether `deleted`, a "-delete" dir, is the old copy of a move whose new copy is in a dir the
  // schedule broke before the move could take its marker out: the broker keeps the old copy, as
  // the only one it can read, until a restart finishes the move.
  bool old_copy_of_broken_move(const fs::path& deleted) const;
  // The server log's last three lines naming the partition of `leftover` (a -future or -delete
  // dir), each on a line of its own; "none" when there is none.
  std::string log_lines_naming(const fs::path& leftover) const;
  // Kills the broker (SIGKILL, or SIGTERM when `graceful`: it must then stop cleanly, exit 0,
  // within 30 s), starts it again and checks everything once moves end.
  std::string restart(bool graceful = false);
  // The partitions' dirs against the last full check's: none may have moved into a dir that has
  // been cordoned all along since (the broker refuses such moves, the balancer and drain never
  // plan them).
  std::string check_moves_into_cordons(const std::map<std::string, std::vector<size_t>>& copies,
                                       const json& describe);

  std::string step_create(const Step& s);
  // Creates partitions `numbers` of `topic`, checking each one created against the cordons in
  // force just before, and adds it to the model; `placed` gets each one's dir index, `errors`
  // (when given) each answer's error. "" or the violation.
  std::string create_partitions(const std::string& topic, const json& numbers,
                                std::map<std::string, size_t>* placed,
                                std::vector<std::string>* errors = nullptr);
  std::string step_delete(const Step& s);
  std::string step_produce(const Step& s);
  // A Kafka client's messages through the listener: each one it is told was written joins the
  // model at its offset, and the partition's size is then what DescribeLogDirs gives.
  std::string step_kafka_produce(const Step& s);
  std::string step_move(const Step& s, bool cancel);
  std::string step_sighup(const Step& s);
  std::string step_cordon(const Step& s);
  std::string step_strategy(const Step& s);
  std::string step_swap_queued_moves(const Step& s);
  std::string step_second_broker();
  std::string step_remount(const Step& s);
  // A log dir added on the disk of dir a % dirs, beside it, and the broker restarted with it: from
  // then on two log dirs share one filesystem (once a run; root only).
  std::string step_share_filesystem(const Step& s);
  std::string step_ext4_disk(const Step& s);

  // A partition the broker lists in a healthy dir (holding acknowledged bytes when `with_bytes`),
  // the `r`-th of those, with the dir's index and the Kafka listener's port (0: none); nullopt
  // when there is none, or the listing failed (then `problem` says why).
  struct Target {
    std::string name;
    size_t dir = 0;
    int port = 0;
  };
  std::optional<Target> healthy_target(uint64_t r, bool with_bytes, std::string* problem);
  // A Produce of a batch Kafka's LogValidator refuses (hostile_kafka.h): answered with Kafka's
  // code, nothing appended, the partition still read from the start.
  std::string step_malformed_produce(const Step& s);
  // Fetches pipelined on one connection and not read: the broker's memory stays bounded, another
  // client is served in time, and the replies read late come whole and in order.
  std::string step_unread_fetches(const Step& s);
  // Kills the broker; true when partition `name` is then in one dir (`copy`), with no move copy,
  // marker or deletion of it anywhere, so it can be tampered with.
  bool stop_for_tampering(const std::string& name, fs::path* copy);
  // Every file and dir under the log dirs with its bytes, except deleted partitions' (which any
  // start may finish deleting).
  std::map<std::string, std::string> live_tree() const;
  // Starts the broker over a tampered dir: "" when it refuses (exit code 2), saying `expected`,
  // with live_tree() unchanged; else what happened.
  std::string refused_start(const std::string& expected, const char* what);
  // With the broker stopped, a copy of a partition in another dir marked complete by a move but
  // holding no segment, half of one, or a marker without its size: the start refuses, changing
  // nothing; the copy removed, the broker serves the source whole.
  std::string step_marked_future(const Step& s);
  // With the broker stopped, a partition's last segment renamed past its first offset: the start
  // refuses, changing nothing; renamed back, the broker serves it whole.
  std::string step_renamed_segment(const Step& s);
  // SIGTERM (the broker records its clean shutdown), then, with it stopped, one of: nothing; a
  // dir's recovery-point checkpoint removed, torn in half, or rewritten with every offset wrong; a
  // partition's last segment appended to after the marker. The restart must serve every
  // acknowledged byte exactly once whatever it trusted.
  std::string step_tampered_clean_shutdown(const Step& s);
  // kill -9, then a segment index removed, torn, grown by zeros, pointed elsewhere or replaced by
  // noise: the restart rebuilds what it needs, and Fetches at offsets across the log each get the
  // batch that holds their offset.
  std::string step_tampered_index(const Step& s);
  // SIGTERM, and the broker must exit 0 within 30 s: "" when it did, else what happened.
  std::string stop_gracefully();

  Environment& env_;
  bool hostile_plugins_;
  bool forbid_plugin_;
  bool ext4_unavailable_logged_ = false;
  fs::path kafka_client_;
  uint64_t client_messages_ = 0;             // keys of the client's messages are unique in a run
  std::string strategy_ = "partition";       // the active strategy, as the broker must report it
  std::set<size_t> held_cordoned_;           // cordoned at the last full check and ever since
  std::map<std::string, size_t> last_dir_;   // each partition's dir at the last full check
  std::map<fs::path, std::string> checked_;  // partition dir -> its fingerprint when it passed
  std::map<std::string, Partition> parts_;   // "t-0" -> what was acknowledged
  std::set<std::string> topics_;
  std::vector<bool> broken_;  // dirs the schedule broke; offline allowed until a restart
  bool balancer_on_ = false;
  std::map<std::string, uint64_t> stats_;
};

}  // namespace lds::torture
