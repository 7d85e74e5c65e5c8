// runner_disk_steps.cpp: the torture steps that change the disks under the broker: a second log
// dir on one filesystem, a read-only remount, and an ext4 image out of blocks or inodes.
#include <chrono>
#include <cstdio>
#include <set>
#include <thread>
#include <vector>

#include "describe_answer.h"
#include "runner.h"

namespace lds::torture {

std::string Runner::step_share_filesystem(const Step& s) {
  const size_t i = s.a % env_.dir_count();
  // A new dir on a full disk cannot take its meta.properties, and goes offline at the restart as
  // it should; the schedule adds one only where it is not breaking the disk too.
  if (env_.filled(i) || broken_[i]) return "";
  if (!env_.add_log_dir_beside(i).empty()) return "";
  broken_.push_back(false);
  ++stats_["shared_filesystem"];
  return restart();
}

std::string Runner::step_remount(const Step& s) {
  const size_t i = s.a % env_.dir_count();
  // Every log dir on the disk may go offline with it.
  std::vector<bool> on_disk(env_.dir_count(), false);
  size_t broken = 0, breaking = 0;
  for (size_t j = 0; j < env_.dir_count(); ++j) {
    on_disk[j] = env_.same_disk(i, j);
    if (on_disk[j] && broken_[j]) return "";
    broken += broken_[j] ? 1 : 0;
    breaking += on_disk[j] ? 1 : 0;
  }
  if (broken + breaking >= env_.dir_count()) return "";  // keep one dir healthy
  json d;
  if (std::string p = quick_check(&d); !p.empty()) return p;
  // tmpfs refuses a read-only remount (EBUSY) while a file on it is open for writing, as during a
  // copy or an append: the step is then skipped, and nothing was broken.
  if (std::string p = env_.remount(i, true); !p.empty()) {
    ++stats_["ro_refused"];
    return "";
  }
  // From here its dirs may go offline at their first I/O error, and stay so until a restart.
  for (size_t j = 0; j < env_.dir_count(); ++j) broken_[j] = broken_[j] || on_disk[j];
  std::string problem;
  for (const auto& dir : log_dirs_of(d)) {
    const size_t j = dir_index(dir["logDir"]);
    if (j >= on_disk.size() || !on_disk[j]) continue;
    for (const auto& p : dir["partitions"]) {
      std::string topic;
      int32_t number = 0;
      if (!parse_partition_name(p["partition"], &topic, &number)) continue;
      const json r = call(
          {{"api", "Produce"}, {"topic", topic}, {"partition", number}, {"bytes", 4096}}, &problem);
      if (!problem.empty()) break;
      const std::string name = p["partition"];
      if (r.value("error", "") == "NONE" && parts_.contains(name)) {
        parts_[name].acked = r.value("size", uint64_t{0});
      }
    }
  }
  // Held read-only a while longer (0 to 1 s), so a move's renames may meet the read-only disk.
  std::this_thread::sleep_for(std::chrono::milliseconds((s.c % 5) * 250));
  std::string back = env_.remount(i, false);
  for (int attempt = 0; !back.empty() && attempt < 50; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    back = env_.remount(i, false);
  }
  if (!back.empty()) return "cannot remount " + env_.disk(i).string() + " read-write: " + back;
  if (!problem.empty()) return problem;
  json after;
  if (std::string p = quick_check(&after); !p.empty()) return p;
  for (const auto& dir : log_dirs_of(after)) {
    const size_t j = dir_index(dir["logDir"]);
    if (j < on_disk.size() && on_disk[j])
      ++stats_[dir["error"].is_null() ? "ro_stayed_online" : "ro_offline"];
  }
  return "";
}

// The first time, adds a log dir on a small ext4 image and restarts with it; later, spends the
// image's blocks or its inodes (ext4 needs both for a new partition dir) and creates partitions:
// each is placed where it fits (ext4 may give a few blocks back once its writeback ends) or
// refused, the ext4 dir stays online with its partitions whole,
// and a refused creation leaves nothing behind (full_check). The image stays full until an
// unfill step.
std::string Runner::step_ext4_disk(const Step& s) {
  const size_t i = env_.ext4_dir();
  if (i == env_.dir_count()) {
    if (std::string why = env_.add_ext4_disk(); !why.empty()) {
      if (!ext4_unavailable_logged_) std::printf("ext4 steps skipped: %s\n", why.c_str());
      ext4_unavailable_logged_ = true;
      ++stats_["ext4_unavailable"];
      return "";
    }
    broken_.push_back(false);
    ++stats_["ext4_added"];
    return restart();
  }
  if (broken_[i]) return "";
  // Topped up each time: a deletion or a move since may have given some back.
  if (s.b % 2 == 0) {
    stats_["ext4_fill_bytes"] += env_.fill(i);
  } else {
    stats_["ext4_fill_inodes"] += env_.exhaust_inodes(i);
  }
  const std::string topic = "e" + std::to_string(s.c % 4);
  json numbers = json::array();
  for (int32_t n = 0; n < 8 && numbers.size() < 2; ++n) {
    if (!parts_.contains(topic + "-" + std::to_string(n))) numbers.push_back(n);
  }
  if (numbers.empty()) return "";
  std::map<std::string, size_t> placed;
  std::vector<std::string> errors;
  if (std::string p = create_partitions(topic, numbers, &placed, &errors); !p.empty()) return p;
  for (const std::string& error : errors) ++stats_["ext4_create_" + error];
  for (const auto& [name, at] : placed) {
    ++stats_[at == i ? "ext4_placed_on_it" : "ext4_placed_elsewhere"];
  }
  // The full dir must still be online: quick_check() holds every dir not broken to that.
  return quick_check();
}

}  // namespace lds::torture
