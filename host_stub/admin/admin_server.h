// admin_server.h: the admin protocol's transport: newline-delimited JSON over a Unix socket.
//
// One event-loop thread accepts connections, reads request lines and enforces the limits; a fixed
// pool of worker threads runs the handler. Each connection has at most one request in the
// handler at a time, so its responses come back in request order.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

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
  // Stops accepting, waits for requests in the handler, closes every connection, joins every
  // thread and removes the socket file.
  ~AdminServer();
  AdminServer(const AdminServer&) = delete;
  AdminServer& operator=(const AdminServer&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Connections open now.
  size_t connections() const;

 private:
  struct Connection {
    int fd = -1;
    std::string input;        // bytes read, not yet handled
    bool discarding = false;  // inside a line that is already too long
    bool busy = false;        // a worker is handling its lines
    bool closing = false;     // the peer is gone or did not read; close when not busy
    std::chrono::steady_clock::time_point last_active;
  };

  void event_loop();
  void accept_one();
  void read_from(const std::shared_ptr<Connection>& c);
  void close_idle(std::chrono::steady_clock::time_point now);
  size_t reap_closed_locked();  // mu_ held
  void worker_loop();
  void handle(const std::shared_ptr<Connection>& c);
  void refuse(int fd, const std::string& why);
  void wake();

  std::filesystem::path path_;
  Handler handler_;
  Limits limits_;
  int listen_fd_ = -1;
  int spare_fd_ = -1;  // given up to accept and refuse a connection when descriptors run out
  int wake_pipe_[2] = {-1, -1};

  mutable std::mutex mu_;  // guards everything below
  bool stopping_ = false;
  std::map<int, std::shared_ptr<Connection>> connections_;
  std::deque<std::shared_ptr<Connection>> ready_;  // connections with complete lines to handle
  std::condition_variable work_cv_;

  std::vector<std::thread> workers_;
  std::thread loop_;
};

}  // namespace lds
