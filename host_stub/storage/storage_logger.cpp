// storage_logger.cpp: storage's one logger, made once.
#include "storage/storage_logger.h"

#include "util/logging.h"

namespace lds {

std::shared_ptr<spdlog::logger> storage_logger() {
  static const std::shared_ptr<spdlog::logger> kLogger = logger("lds.log_manager");
  return kLogger;
}

}  // namespace lds
