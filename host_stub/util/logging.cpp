// logging.cpp: the host's named loggers, sharing one stderr sink and one level.
#include "util/logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <mutex>

namespace lds {
namespace {

std::mutex& registry_mutex() {
  static std::mutex mu;
  return mu;
}

spdlog::sink_ptr& shared_sink() {
  static spdlog::sink_ptr sink = [] {
    auto s = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    s->set_pattern("%Y-%m-%d %H:%M:%S.%e %^%-5l%$ [%n] %v");
    return spdlog::sink_ptr(std::move(s));
  }();
  return sink;
}

spdlog::level::level_enum& current_level() {
  static spdlog::level::level_enum level = spdlog::level::info;
  return level;
}

}  // namespace

void set_log_sink(spdlog::sink_ptr sink) {
  std::lock_guard lock(registry_mutex());
  shared_sink() = sink;
  spdlog::apply_all([&sink](const std::shared_ptr<spdlog::logger>& l) {
    if (l->name().rfind("lds.", 0) == 0) l->sinks() = {sink};
  });
}

std::shared_ptr<spdlog::logger> logger(const std::string& name) {
  std::lock_guard lock(registry_mutex());
  if (auto existing = spdlog::get(name)) return existing;
  auto created = std::make_shared<spdlog::logger>(name, shared_sink());
  created->set_level(current_level());
  created->flush_on(spdlog::level::warn);
  spdlog::register_logger(created);
  return created;
}

bool set_log_level(const std::string& level) {
  auto parsed = spdlog::level::from_str(level);
  if (parsed == spdlog::level::off && level != "off") return false;
  std::lock_guard lock(registry_mutex());
  current_level() = parsed;
  spdlog::apply_all([parsed](const std::shared_ptr<spdlog::logger>& l) {
    if (l->name().rfind("lds.", 0) == 0) l->set_level(parsed);
  });
  return true;
}

}  // namespace lds
