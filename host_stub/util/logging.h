// logging.h: the host's named spdlog loggers (one per module, one per plugin); never the default
// logger.
#pragma once

#include <spdlog/spdlog.h>

#include <memory>
#include <string>

namespace lds {

// The logger `name` ("lds.config", "lds.plugin.size", ...), created on first use. All of the host's
// loggers share one stderr sink and the level last set with set_log_level().
std::shared_ptr<spdlog::logger> logger(const std::string& name);

// Applies log.level ("trace", "debug", "info", "warn", "error", "off") to every host logger.
// Returns false, changing nothing, for an unknown level name.
bool set_log_level(const std::string& level);

// Replaces the shared sink of every host logger, existing and future: a host embedded in another
// process (the Kafka agent's bridge) sends the lines to that process's own logging. Call it
// before any other thread logs: a logger's sink list is not guarded.
void set_log_sink(spdlog::sink_ptr sink);

}  // namespace lds
