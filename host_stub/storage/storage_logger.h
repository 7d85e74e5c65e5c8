// storage_logger.h: storage's one logger, named "lds.log_manager" (the name operators' log filters
// and docs/operations.md use), for every file of the library.
#pragma once

#include <spdlog/logger.h>

#include <memory>

namespace lds {

std::shared_ptr<spdlog::logger> storage_logger();

}  // namespace lds
