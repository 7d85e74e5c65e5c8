// pending_deletions.cpp: reads and atomically rewrites the record of pending replica deletions.
#include "storage/pending_deletions.h"

#include <toml++/toml.h>
#include <unistd.h>

#include <cerrno>
#include <limits>
#include <sstream>

#include "io/durable_file.h"
#include "util/errors.h"

namespace lds {

namespace fs = std::filesystem;

namespace {

constexpr const char* kHeader =
    "# Written by lds-host: replicas of deleted topics whose log directory was offline. Each is\n"
    "# removed at the next start that finds its directory readable, before anything is served.\n"
    "# Do not edit.\n";

[[noreturn]] void refuse(const fs::path& file, const std::string& why) {
  throw ConfigError("The pending deletions file " + file.string() + " " + why +
                    "; it is left as it is. Restore it, or remove it to give up those deletions.");
}

std::string string_of(const fs::path& file, const toml::table& t, const char* key, size_t i) {
  const std::optional<std::string> v = t[key].value<std::string>();
  if (!v)
    refuse(file, "has no string '" + std::string(key) + "' in entry " + std::to_string(i + 1));
  return *v;
}

}  // namespace

void PendingDeletions::load() {
  entries_.clear();
  std::error_code ec;
  if (!enabled() || !fs::exists(file_, ec)) {
    if (ec) refuse(file_, "cannot be checked: " + ec.message());
    return;
  }
  toml::table root;
  try {
    root = toml::parse_file(file_.string());
  } catch (const toml::parse_error& e) {
    refuse(file_, "cannot be read: " + std::string(e.description()));
  }
  const toml::array* list = root["pending"].as_array();
  if (list == nullptr) {
    if (root.contains("pending")) refuse(file_, "has 'pending' that is not an array of tables");
    return;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const toml::table* t = (*list)[i].as_table();
    if (t == nullptr) refuse(file_, "has entry " + std::to_string(i + 1) + " that is not a table");
    PendingDeletion d;
    d.topic = string_of(file_, *t, "topic", i);
    const std::optional<int64_t> partition = (*t)["partition"].value<int64_t>();
    if (!partition || *partition < 0 || *partition > std::numeric_limits<int32_t>::max()) {
      refuse(file_, "has no partition number in entry " + std::to_string(i + 1));
    }
    d.partition = static_cast<int32_t>(*partition);
    d.log_dir = string_of(file_, *t, "log_dir", i);
    d.directory_id = string_of(file_, *t, "directory_id", i);
    // Absent in records written before it existed: the name alone decides then.
    d.replica_id = t->contains("replica_id") ? string_of(file_, *t, "replica_id", i) : "";
    d.reason = t->contains("reason") ? string_of(file_, *t, "reason", i) : "";
    entries_.push_back(std::move(d));
  }
}

void PendingDeletions::write(const std::vector<PendingDeletion>& entries) const {
  if (entries.empty()) {
    if (::unlink(file_.c_str()) != 0 && errno != ENOENT) throw FileError(errno, "unlink", file_);
    fsync_folder(file_.parent_path());
    return;
  }
  toml::array list;
  for (const PendingDeletion& d : entries) {
    toml::table t{{"topic", d.topic},
                  {"partition", static_cast<int64_t>(d.partition)},
                  {"log_dir", d.log_dir},
                  {"directory_id", d.directory_id}};
    if (!d.replica_id.empty()) t.insert("replica_id", d.replica_id);
    t.insert("reason", d.reason);
    list.push_back(std::move(t));
  }
  std::ostringstream out;
  out << kHeader << toml::table{{"pending", std::move(list)}} << "\n";
  write_file_atomically(file_, out.str(), 0644);
}

void PendingDeletions::add(const std::vector<PendingDeletion>& added) {
  std::vector<PendingDeletion> next = entries_;
  for (const PendingDeletion& d : added) {
    bool known = false;
    for (const PendingDeletion& e : next) known = known || e.same_replica(d);
    if (!known) next.push_back(d);
  }
  write(next);
  entries_ = std::move(next);
}

void PendingDeletions::keep_only(const std::vector<PendingDeletion>& remaining) {
  write(remaining);
  entries_ = remaining;
}

}  // namespace lds
