// logging.cpp: the host's named loggers, sharing one stderr sink and one level.
#include "util/logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include "util/mutex.h"

namespace lds {
namespace {

// The sink and level every "lds." logger shares, and the lock that keeps them and spdlog's
// registry in step.
struct Registry {
  Mutex mu;
  spdlog::sink_ptr sink GUARDED_BY(mu) = [] {
    auto s = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    s->set_pattern("%Y-%m-%d %H:%M:%S.%e %^%-5l%$ [%n] %v");
    return spdlog::sink_ptr(std::move(s));
  }();
  spdlog::level::level_enum level GUARDED_BY(mu) = spdlog::level::info;
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: loggers are used until the process ends
  return *r;
}

}  // namespace

void set_log_sink(spdlog::sink_ptr sink) {
  Registry& r = registry();
  MutexLock lock(r.mu);
  r.sink = sink;
  spdlog::apply_all([&sink](const std::shared_ptr<spdlog::logger>& l) {
    if (l->name().rfind("lds.", 0) == 0) l->sinks() = {sink};
  });
}

std::shared_ptr<spdlog::logger> logger(const std::string& name) {
  Registry& r = registry();
  MutexLock lock(r.mu);
  if (auto existing = spdlog::get(name)) return existing;
  auto created = std::make_shared<spdlog::logger>(name, r.sink);
  created->set_level(r.level);
  created->flush_on(spdlog::level::warn);
  spdlog::register_logger(created);
  return created;
}

bool set_log_level(const std::string& level) {
  auto parsed = spdlog::level::from_str(level);
  if (parsed == spdlog::level::off && level != "off") return false;
  Registry& r = registry();
  MutexLock lock(r.mu);
  r.level = parsed;
  spdlog::apply_all([parsed](const std::shared_ptr<spdlog::logger>& l) {
    if (l->name().rfind("lds.", 0) == 0) l->set_level(parsed);
  });
  return true;
}

}  // namespace lds
