// unix_socket.h: what the admin server and client share about Unix stream sockets.
#pragma once

#include <sys/un.h>

#include <chrono>
#include <filesystem>
#include <string_view>

namespace lds::unix_socket {

// The address of a socket file. Throws std::runtime_error when the path does not fit sun_path.
sockaddr_un address_of(const std::filesystem::path& path);

// Sends all of `data` on a blocking or non-blocking socket, waiting up to `timeout` for room each
// time the peer's buffer is full. Returns false when the peer is gone or does not read in time.
// Never raises SIGPIPE.
bool send_all(int fd, std::string_view data,
              std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));

}  // namespace lds::unix_socket
