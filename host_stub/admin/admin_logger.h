// admin_logger.h: the admin API's one logger, "lds.admin", for the server and the requests.
#pragma once

#include <spdlog/logger.h>

#include <memory>

namespace lds {

std::shared_ptr<spdlog::logger> admin_logger();

}  // namespace lds
