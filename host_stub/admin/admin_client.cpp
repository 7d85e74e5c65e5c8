// admin_client.cpp: the client side of the admin socket, used by the lds-host subcommands.
#include "admin/admin_client.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "admin/unix_socket.h"

namespace lds {

AdminClient::AdminClient(const std::filesystem::path& socket_path) {
  const sockaddr_un addr = unix_socket::address_of(socket_path);
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0 || ::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    const int err = errno;
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    throw std::runtime_error("Cannot connect to the admin socket " + socket_path.string() + ": " +
                             strerror(err) + " (is `lds-host serve` running?).");
  }
}

AdminClient::~AdminClient() {
  if (fd_ >= 0) ::close(fd_);
}

std::string AdminClient::call(std::string_view line) {
  std::string request(line);
  request += '\n';
  // A request may wait behind a slow one (a strategy swap); the client waits as long as it takes.
  // A server that refuses the connection (admin.max.connections) answers one line and closes; the
  // send may then fail, but that line is still there to read.
  const bool sent = unix_socket::send_all(fd_, request, std::chrono::hours(24));
  char chunk[64 * 1024];
  for (;;) {
    const auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string response = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return response;
    }
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, sent ? 0 : MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("The admin server closed the connection.");
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

}  // namespace lds
