// admin_server.h: the admin protocol's transport: newline-delimited JSON over a Unix socket.
//
// One event-loop thread accepts connections, reads request lines and enforces the limits; a fixed
// pool of worker threads runs the handler. Each connection has at most one request in the
// handler at a time, so its responses come back in request order.
//
// A handler may never return (it can be stuck inside a strategy plugin), so stopping waits for the
// workers only so long and then leaves the busy ones behind. The state they use is shared with
// them and outlives the server; what their handler uses (the broker) is the caller's to keep.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "net/stream_server.h"

namespace lds {

class AdminServer {
 public:
  using Handler = std::function<std::string(std::string_view line)>;
  static constexpr size_t kMaxLineBytes = 1 << 20;  // longer lines get INVALID_REQUEST

  struct Limits {
    size_t max_connections = 64;                               // admin.max.connections
    std::chrono::milliseconds idle{std::chrono::minutes(10)};  // admin.connection.idle.ms
    size_t workers = 4;                                        // handler threads
  };

  // Binds `socket_path` with mode 0600 and starts the threads. The socket's folder must be owned
  // by root or by this process's user and not writable by group or others, unless it has the
  // sticky bit (as /tmp). A stale socket file (nobody listening) is replaced; a live one is an
  // error. Throws std::runtime_error naming the path, or saying which thread could not start.
  AdminServer(std::filesystem::path socket_path, Handler handler, Limits limits);
  AdminServer(std::filesystem::path socket_path, Handler handler)
      : AdminServer(std::move(socket_path), std::move(handler), Limits{}) {}
  // stop(), if it has not run yet.
  ~AdminServer();
  AdminServer(const AdminServer&) = delete;
  AdminServer& operator=(const AdminServer&) = delete;

  // How long stop() waits for requests still in the handler: the broker's shutdown grace. Long
  // enough for a request that is merely slow to answer, short enough that SIGTERM ends the process
  // within seconds even when a handler never returns.
  static constexpr std::chrono::seconds kStopGrace{5};

  // Stops accepting, closes the idle connections, waits up to kStopGrace for requests in the
  // handler, and removes the socket file. Returns how many workers were still in the handler at
  // the deadline: they are abandoned, not joined, and keep their connections open until they
  // return; the caller must then keep alive whatever the handler uses, or end the process. Later
  // calls do nothing and return the same count.
  size_t stop();

  const std::filesystem::path& path() const { return path_; }
  // Connections open now.
  size_t connections() const;

 private:
  std::filesystem::path path_;
  Limits limits_;
  std::unique_ptr<StreamServer> server_;
  bool stopped_ = false;  // the socket file is removed once
};

}  // namespace lds
