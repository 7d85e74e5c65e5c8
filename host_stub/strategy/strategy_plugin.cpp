// strategy_plugin.cpp: loads a strategy .so from a private copy and validates it before anyone uses
// it.
#include "strategy/strategy_plugin.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/dll/shared_library.hpp>
#include <cstring>
#include <limits>
#include <system_error>

#include "io/durable_file.h"
#include "strategy/abi_rules.h"
#include "util/bounded_call.h"
#include "util/errors.h"
#include "util/logging.h"
#include "util/mutex.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

constexpr uint32_t kErrorCap = 512;

// What the process keeps until it exits (never destroyed): the libraries of plugin.never.unload,
// and the strategies a load gave up on while a thread was inside them, since that thread may
// return into the instance and the library at any time.
struct KeptForever {
  Mutex mu;
  std::vector<std::unique_ptr<boost::dll::shared_library>> libraries GUARDED_BY(mu);
  std::vector<std::shared_ptr<const LoadedStrategy>> strategies GUARDED_BY(mu);
};
KeptForever& kept_forever() {
  static auto* kept = new KeptForever();
  return *kept;
}

void keep_forever(std::shared_ptr<const LoadedStrategy> strategy) {
  KeptForever& kept = kept_forever();
  MutexLock lock(kept.mu);
  kept.strategies.push_back(std::move(strategy));
}

// How many plugin calls one thread is inside (a plugin may call the host, which may call a plugin).
// Only its own thread writes it, with plain loads and stores: entering and leaving a plugin takes
// no locked instruction and shares no cache line with other threads, which a placement pays for on
// every decision. Registered while its thread lives, so threads_inside() can read every thread's.
class InsideCount;
struct InsideRegistry {
  Mutex mu;
  std::vector<const InsideCount*> threads GUARDED_BY(mu);
};
InsideRegistry& inside_registry() {  // never destroyed: a detached thread may end after exit
  static auto* registry = new InsideRegistry();
  return *registry;
}

class InsideCount {
 public:
  InsideCount() {
    InsideRegistry& r = inside_registry();
    MutexLock lock(r.mu);
    r.threads.push_back(this);
  }
  ~InsideCount() {
    InsideRegistry& r = inside_registry();
    MutexLock lock(r.mu);
    r.threads.erase(std::find(r.threads.begin(), r.threads.end(), this));
  }
  InsideCount(const InsideCount&) = delete;
  InsideCount& operator=(const InsideCount&) = delete;

  void add(int32_t delta) {
    calls_.store(calls_.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
  }
  bool inside() const { return calls_.load(std::memory_order_relaxed) > 0; }

 private:
  std::atomic<int32_t> calls_{0};
};

thread_local InsideCount this_thread_inside;

// Counts the calling thread as inside plugin code while it lives, for
// LoadedStrategy::threads_inside.
class InsidePlugin {
 public:
  InsidePlugin() { this_thread_inside.add(+1); }
  ~InsidePlugin() { this_thread_inside.add(-1); }
  InsidePlugin(const InsidePlugin&) = delete;
  InsidePlugin& operator=(const InsidePlugin&) = delete;
};

// create and the dry-run rank of one load, run on a thread that the load may abandon. Everything
// the plugin is handed lives here, owned jointly with that thread, so nothing it may still write to
// after an abandonment points into the loader's stack. The descriptor's functions and the host API
// belong to the strategy being loaded, which outlives the thread (see keep_forever).
class ValidationJob {
 public:
  enum class Phase { kCreate, kDryRun };

  ValidationJob(const lds_strategy& descriptor, const lds_host_api* host,
                const StrategyLoadSpec& spec)
      : create_(descriptor.create), rank_(descriptor.rank), host_(host), options_(spec.options) {
    config_.reserve(options_.size());
    for (const auto& [key, value] : options_) config_.push_back({key.c_str(), value.c_str()});
    // Paths first, all of them: a string's characters move while its vector grows.
    paths_.reserve(spec.dry_run_dirs.size());
    for (const lds_dir& d : spec.dry_run_dirs) paths_.emplace_back(d.path != nullptr ? d.path : "");
    dirs_.assign(spec.dry_run_dirs.begin(), spec.dry_run_dirs.end());
    for (size_t i = 0; i < dirs_.size(); ++i) dirs_[i].path = paths_[i].c_str();
    const uint32_t n = static_cast<uint32_t>(dirs_.size());
    order_.resize(std::max<uint32_t>(n, 1));
    scores_.assign(std::max<uint32_t>(n, 1), std::numeric_limits<double>::quiet_NaN());
    args_ = abi_rules::rank_args(&request_, dirs_.data(), n, order_.data(), rank_error_, kErrorCap,
                                 LDS_RANK_VALIDATE, scores_.data());
  }
  ValidationJob(const ValidationJob&) = delete;
  ValidationJob& operator=(const ValidationJob&) = delete;

  // On the validation thread.
  void run() {
    {
      const InsidePlugin inside;
      create_status_ = create_(host_, config_.data(), static_cast<uint32_t>(config_.size()),
                               &instance_, create_error_, kErrorCap);
    }
    create_error_[kErrorCap - 1] = '\0';
    if (create_status_ != LDS_OK || abandoned_.load()) return;
    phase_.store(Phase::kDryRun);
    {
      const InsidePlugin inside;
      rank_status_ = rank_(instance_, &args_);
    }
    rank_error_[kErrorCap - 1] = '\0';
  }

  // While the thread may still run.
  Phase phase() const { return phase_.load(); }
  void abandon() { abandoned_.store(true); }

  // Once the thread has returned.
  int32_t create_status() const { return create_status_; }
  const char* create_error() const { return create_error_; }
  void* instance() const { return instance_; }
  int32_t rank_status() const { return rank_status_; }
  const char* rank_error() const { return rank_error_; }
  const uint32_t* order() const { return order_.data(); }
  uint32_t order_len() const { return args_.order_len; }
  uint32_t dir_count() const { return args_.dir_count; }

 private:
  decltype(lds_strategy::create) create_;
  decltype(lds_strategy::rank) rank_;
  const lds_host_api* host_;
  std::atomic<Phase> phase_{Phase::kCreate};
  std::atomic<bool> abandoned_{false};

  std::vector<std::pair<std::string, std::string>> options_;
  std::vector<lds_config_entry> config_;
  void* instance_ = nullptr;
  int32_t create_status_ = LDS_ERR_INTERNAL;
  char create_error_[kErrorCap] = {};

  std::vector<std::string> paths_;
  std::vector<lds_dir> dirs_;
  std::vector<uint32_t> order_;
  std::vector<double> scores_;
  lds_request request_{sizeof(lds_request), 0, "__lds_dry_run", 0, 0};
  lds_rank_args args_{};
  int32_t rank_status_ = LDS_ERR_INTERNAL;
  char rank_error_[kErrorCap] = {};
};

[[noreturn]] void fail(const fs::path& file, const std::string& what) {
  throw PluginError("Strategy plugin " + file.string() + " " + what);
}

// The strategies plugin.dir holds (liblds_<name>.so), sorted, for a name that was not found.
std::string strategies_in(const fs::path& plugin_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(plugin_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string file = it->path().filename().string();
    if (!file.starts_with("liblds_") || !file.ends_with(".so")) continue;
    std::string name = file.substr(7, file.size() - 7 - 3);
    if (abi_rules::valid_strategy_name(name)) names.push_back(std::move(name));
  }
  if (names.empty()) return "it holds no strategy";
  std::sort(names.begin(), names.end());
  std::string out = "it holds ";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ", ";
    out += names[i];
  }
  return out;
}

spdlog::level::level_enum to_spdlog(int32_t level) {
  switch (level) {
    case LDS_LOG_TRACE:
      return spdlog::level::trace;
    case LDS_LOG_DEBUG:
      return spdlog::level::debug;
    case LDS_LOG_INFO:
      return spdlog::level::info;
    case LDS_LOG_WARN:
      return spdlog::level::warn;
    default:
      return spdlog::level::err;
  }
}

void host_log(void* context, int32_t level, const char* message) {
  if (context == nullptr || message == nullptr) return;
  static_cast<spdlog::logger*>(context)->log(to_spdlog(level), "{}", message);
}

int32_t host_log_enabled(void* context, int32_t level) {
  if (context == nullptr) return 0;
  return static_cast<spdlog::logger*>(context)->should_log(to_spdlog(level)) ? 1 : 0;
}

// The owner and mode rules sshd and sudo apply to what they execute: owned by root or by us, and
// not writable by group or others.
void check_ownership(const fs::path& shown, const struct stat& st, const char* what) {
  if (st.st_uid != 0 && st.st_uid != ::geteuid()) {
    fail(shown, std::string("is refused: its ") + what + " is owned by uid " +
                    std::to_string(st.st_uid) + ", not by root or by this server's user.");
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    fail(shown, std::string("is refused: its ") + what +
                    " is writable by group or others (chmod go-w to fix).");
  }
}

// Resolves and checks the plugin file; returns the real file to copy.
fs::path checked_plugin_file(const fs::path& plugin_dir, const fs::path& file) {
  struct stat dir_st {};
  if (::stat(plugin_dir.c_str(), &dir_st) != 0 || !S_ISDIR(dir_st.st_mode)) {
    fail(file, "cannot be loaded: plugin.dir " + plugin_dir.string() + " is not a directory.");
  }
  check_ownership(file, dir_st, "folder (plugin.dir)");

  std::error_code ec;
  if (!fs::exists(fs::symlink_status(file, ec))) {
    fail(file, "does not exist (no such strategy in plugin.dir " + plugin_dir.string() + "; " +
                   strategies_in(plugin_dir) + ").");
  }
  fs::path real = fs::canonical(file, ec);
  if (ec) fail(file, "cannot be resolved: " + ec.message() + ".");
  fs::path real_dir = fs::canonical(plugin_dir, ec);
  if (ec || real.parent_path() != real_dir) {
    fail(file, "is refused: it resolves to " + real.string() + ", outside plugin.dir " +
                   plugin_dir.string() + ".");
  }
  struct stat st {};
  if (::stat(real.c_str(), &st) != 0)
    fail(file, "cannot be read: " + std::string(strerror(errno)) + ".");
  if (!S_ISREG(st.st_mode)) fail(file, "is not a regular file.");
  check_ownership(file, st, "file");
  return real;
}

// A private copy of the library, so that a file rebuilt at the same path is loaded afresh (the
// dynamic loader caches by path). The copy is unlinked as soon as it is mapped.
fs::path private_copy(const fs::path& shown, const fs::path& real, const std::string& name) {
  std::string pattern =
      (fs::temp_directory_path() / ("lds-plugin-" + name + "-XXXXXX.so")).string();
  const Fd out(::mkostemps(pattern.data(), 3, O_CLOEXEC));
  if (!out) fail(shown, "cannot be copied for loading: " + std::string(strerror(errno)) + ".");
  fs::path copy = pattern;
  try {
    const Fd in = open_file(real, O_RDONLY);
    char buf[1 << 16];
    for (;;) {
      const ssize_t n = ::read(in.get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      check_syscall(n, "read", real);
      if (n == 0) break;
      write_all(out, std::string_view(buf, static_cast<size_t>(n)), copy);
    }
  } catch (const FileError& e) {
    ::unlink(copy.c_str());
    fail(shown, "cannot be copied for loading: " + e.code().message() + ".");
  }
  return copy;
}

std::string dl_reason(const std::exception& e, const fs::path& copy, const fs::path& shown) {
  std::string what = e.what();
  const std::string marker = "dlerror system message: ";
  auto at = what.find(marker);
  if (at != std::string::npos) {
    // Boost wraps it as "... (dlerror system message: TEXT): <errno text>"; keep TEXT only.
    what = what.substr(at + marker.size());
    if (auto close = what.rfind(')'); close != std::string::npos) what.erase(close);
  }
  for (auto pos = what.find(copy.string()); pos != std::string::npos;
       pos = what.find(copy.string())) {
    what.replace(pos, copy.string().size(), shown.string());
  }
  return what;
}

// Device, inode, size and modification time: changes whenever the file is replaced or rewritten.
std::string identity_of(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return "missing";
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" +
         std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

// A plugin's error text as the body of a host sentence: the host adds the final period, so the
// plugin's own is dropped.
std::string text_of(const char* buffer) {
  std::string s(buffer, strnlen(buffer, kErrorCap));
  while (!s.empty() && (s.back() == '.' || s.back() == ' ' || s.back() == '\n')) s.pop_back();
  return s.empty() ? "no reason given" : s;
}

// Logs that a load gave up on a plugin still inside create or its dry-run rank, keeps the strategy
// for ever (that thread may return into it) and refuses the load.
[[noreturn]] void give_up(ValidationJob& job, std::shared_ptr<LoadedStrategy>& self,
                          const fs::path& file, const StrategyLoadSpec& spec) {
  job.abandon();
  const bool in_create = job.phase() == ValidationJob::Phase::kCreate;
  const std::string timeout = std::to_string(spec.validation_timeout.count()) + " ms";
  logger("lds.plugin")
      ->error(
          "Gave up on strategy plugin {} (generation {}) after {} in its {}; the thread stays "
          "inside it, so its library stays mapped and its instance is never destroyed.",
          file.string(), spec.generation, timeout, in_create ? "create" : "dry-run rank");
  keep_forever(std::move(self));
  fail(file, std::string("did not ") +
                 (in_create ? "return from create" : "answer its dry-run rank") + " within " +
                 timeout +
                 " (plugin.validation.timeout.ms); it stays loaded but unused, since a thread is "
                 "still inside it.");
}

// Refuses a plugin whose create rejected its options or failed.
void check_created(const ValidationJob& job, const fs::path& file) {
  const int32_t created = job.create_status();
  if (created == LDS_ERR_INVALID_ARGUMENT) {
    fail(file, "rejected its options: " + text_of(job.create_error()) + ".");
  }
  if (created != LDS_OK) {
    fail(file, "failed to create its instance (status " + std::to_string(created) +
                   "): " + text_of(job.create_error()) + ".");
  }
}

// Refuses a plugin whose dry-run rank failed or returned an invalid ranking.
void check_dry_run(const ValidationJob& job, const fs::path& file) {
  const int32_t status = job.rank_status();
  if (status == LDS_OK) {
    std::string bad = abi_rules::ranking_problem(job.order(), job.order_len(), job.dir_count());
    if (!bad.empty()) fail(file, "returned an invalid ranking in its dry run: " + bad + ".");
  } else if (status != LDS_ERR_NO_ELIGIBLE_DIR) {
    fail(file, "failed its dry-run rank with status " + std::to_string(status) + ": " +
                   text_of(job.rank_error()) + ".");
  }
}

}  // namespace

std::shared_ptr<const LoadedStrategy> LoadedStrategy::load(const StrategyLoadSpec& spec) {
  if (!abi_rules::valid_strategy_name(spec.name)) {
    throw PluginError("Strategy name '" + spec.name +
                      "' is invalid: it must match [a-z0-9_]+ (log.directory.select.strategy).");
  }
  const fs::path file = spec.plugin_dir / abi_rules::plugin_file_name(spec.name);
  const fs::path real = checked_plugin_file(spec.plugin_dir, file);
  const std::string identity = identity_of(real);
  const fs::path copy = private_copy(file, real, spec.name);

  std::shared_ptr<LoadedStrategy> self(new LoadedStrategy());
  self->file_ = file;
  self->file_identity_ = identity;
  self->name_ = spec.name;
  self->generation_ = spec.generation;
  self->options_ = spec.options;
  self->placement_count_ = spec.placement_count;
  self->never_unload_ = spec.never_unload;
  self->map_library(copy);
  self->read_descriptor();

  self->log_ = logger("lds.plugin." + spec.name);
  self->host_api_.struct_size = sizeof(lds_host_api);
  self->host_api_.context = self->log_.get();
  self->host_api_.log = &host_log;
  self->host_api_.log_enabled = &host_log_enabled;

  create_and_dry_run(self, spec);
  return self;
}

void LoadedStrategy::map_library(const fs::path& copy) {
  if (std::string problem = abi_rules::truncated_elf_problem(copy); !problem.empty()) {
    ::unlink(copy.c_str());
    fail(file_, "is not a loadable shared object: " + problem + ".");
  }
  try {
    library_ = std::make_unique<boost::dll::shared_library>(
        copy, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    ::unlink(copy.c_str());
    fail(file_, "is not a loadable shared object: " + dl_reason(e, copy, file_) + ".");
  }
  ::unlink(copy.c_str());
}

void LoadedStrategy::read_descriptor() {
  if (!library_->has(LDS_ENTRY_POINT_NAME)) {
    fail(file_, "does not export " LDS_ENTRY_POINT_NAME ".");
  }
  auto entry = library_->get<const lds_strategy*(uint32_t, uint32_t)>(LDS_ENTRY_POINT_NAME);
  const lds_strategy* raw = entry(LDS_ABI_MAJOR, LDS_ABI_MINOR);
  if (raw == nullptr) {
    fail(file_, "refused this host of ABI " + std::to_string(LDS_ABI_MAJOR) + "." +
                    std::to_string(LDS_ABI_MINOR) + ": " LDS_ENTRY_POINT_NAME "(" +
                    std::to_string(LDS_ABI_MAJOR) + ", " + std::to_string(LDS_ABI_MINOR) +
                    ") returned NULL, so it needs another ABI version than this host speaks.");
  }
  constexpr uint32_t kV1Size = abi_rules::kStrategyV1Size;
  if (raw->struct_size < kV1Size) {
    fail(file_, "has a descriptor struct_size of " + std::to_string(raw->struct_size) +
                    " bytes, smaller than the " + std::to_string(kV1Size) + " of ABI version 1.0.");
  }
  std::memcpy(&descriptor_, raw, std::min<size_t>(raw->struct_size, sizeof(lds_strategy)));
  const lds_strategy& d = descriptor_;
  if (d.abi_major != LDS_ABI_MAJOR) {
    fail(file_, "was built for ABI major " + std::to_string(d.abi_major) + ", this host speaks " +
                    std::to_string(LDS_ABI_MAJOR) + ".");
  }
  if (d.name == nullptr || d.version == nullptr || d.description == nullptr) {
    fail(file_, "has a descriptor with a NULL name, version or description.");
  }
  if (std::string(d.name) != name_) {
    fail(file_,
         "names itself '" + std::string(d.name) + "', not '" + name_ + "' as its file name says.");
  }
  if (d.create == nullptr || d.destroy == nullptr || d.rank == nullptr) {
    fail(file_, std::string("has a NULL ") +
                    (d.create == nullptr    ? "create"
                     : d.destroy == nullptr ? "destroy"
                                            : "rank") +
                    " function.");
  }
  version_ = d.version;
  description_ = d.description;
  capabilities_ = d.capabilities;
  // At most a column heading's worth, printable: it is shown, never interpreted.
  if (d.score_name != nullptr) {
    score_name_.assign(d.score_name, strnlen(d.score_name, abi_rules::kScoreNameMaxBytes));
    for (char& c : score_name_) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    }
  }
}

void LoadedStrategy::create_and_dry_run(std::shared_ptr<LoadedStrategy>& self,
                                        const StrategyLoadSpec& spec) {
  const fs::path file = self->file_;
  // create, then a dry run on the current directories: the plugin must answer with a valid ranking
  // (or say that nothing is eligible) before it is allowed to place anything. Both run on a thread
  // bounded by plugin.validation.timeout.ms, so a plugin that never answers costs one abandoned
  // thread rather than the caller, who may hold the broker's control lock.
  auto job = std::make_shared<ValidationJob>(self->descriptor_, &self->host_api_, spec);
  bool answered = false;
  try {
    answered = call_within(spec.validation_timeout, [job] { job->run(); });
  } catch (const std::system_error& e) {
    fail(file,
         "cannot be validated: no thread could be started for it: " + std::string(e.what()) + ".");
  }
  if (!answered) give_up(*job, self, file, spec);
  check_created(*job, file);
  self->instance_ = job->instance();
  self->created_ = true;
  check_dry_run(*job, file);
}

bool LoadedStrategy::file_changed() const {
  std::error_code ec;
  fs::path real = fs::canonical(file_, ec);
  return ec || identity_of(real) != file_identity_;
}

int32_t LoadedStrategy::rank(lds_rank_args* args) const noexcept {
  const InsidePlugin inside;
  return descriptor_.rank(instance_, args);
}

void LoadedStrategy::placed(const lds_request& request, const lds_dir& dir) const noexcept {
  if (descriptor_.placed == nullptr) return;
  const InsidePlugin inside;
  descriptor_.placed(instance_, &request, &dir);
}

size_t LoadedStrategy::threads_inside() {
  InsideRegistry& r = inside_registry();
  MutexLock lock(r.mu);
  return static_cast<size_t>(std::count_if(r.threads.begin(), r.threads.end(),
                                           [](const InsideCount* t) { return t->inside(); }));
}

LoadedStrategy::~LoadedStrategy() {
  if (created_ && descriptor_.destroy != nullptr) {
    const InsidePlugin inside;
    descriptor_.destroy(instance_);
  }
  if (library_ && never_unload_) {
    KeptForever& kept = kept_forever();
    MutexLock lock(kept.mu);
    kept.libraries.push_back(std::move(library_));
  }
  // Otherwise library_ unloads here, after the instance is gone.
}

}  // namespace lds
