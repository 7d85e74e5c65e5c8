// admin_logger.cpp: the admin API's one logger, made once.
#include "admin/admin_logger.h"

#include "util/logging.h"

namespace lds {

std::shared_ptr<spdlog::logger> admin_logger() {
  static const std::shared_ptr<spdlog::logger> kLogger = logger("lds.admin");
  return kLogger;
}

}  // namespace lds
