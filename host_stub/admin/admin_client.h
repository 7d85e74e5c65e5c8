// admin_client.h: one connection to a broker's admin socket, one request line at a time.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace lds {

class AdminClient {
 public:
  // Connects to `socket_path`. Throws std::runtime_error naming the path and the reason.
  explicit AdminClient(const std::filesystem::path& socket_path);
  ~AdminClient();
  AdminClient(const AdminClient&) = delete;
  AdminClient& operator=(const AdminClient&) = delete;

  // Sends one line and returns the one line that answers it (without the newline). Throws
  // std::runtime_error when the server closes the connection.
  std::string call(std::string_view line);

 private:
  int fd_ = -1;
  std::string buffer_;
};

}  // namespace lds
