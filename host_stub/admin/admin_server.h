// admin_server.h: newline-delimited JSON over a Unix socket (mode 0600), one thread per client.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <list>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace lds {

class AdminServer {
 public:
  using Handler = std::function<std::string(std::string_view line)>;
  static constexpr size_t kMaxLineBytes = 1 << 20;  // longer lines get INVALID_REQUEST

  // Binds `socket_path` with mode 0600. Its folder must be owned by root or by this process's user
  // and not writable by group or others, unless it has the sticky bit (as /tmp). A stale socket
  // file (nobody listening) is replaced; a live one is an error. Throws std::runtime_error naming
  // the path.
  AdminServer(std::filesystem::path socket_path, Handler handler);
  // Stops accepting, closes every connection, joins every thread and removes the socket file.
  ~AdminServer();
  AdminServer(const AdminServer&) = delete;
  AdminServer& operator=(const AdminServer&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  struct Connection {
    int fd = -1;
    std::thread thread;
    std::atomic<bool> done{false};
  };
  void accept_loop();
  void serve(Connection* c);
  void reap_finished();

  std::filesystem::path path_;
  Handler handler_;
  int listen_fd_ = -1;
  int wake_pipe_[2] = {-1, -1};
  std::atomic<bool> stopping_{false};
  std::mutex connections_mu_;
  std::list<Connection> connections_;
  std::thread acceptor_;
};

// A client connection: sends one line, reads one line. Throws std::runtime_error on I/O failure.
class AdminClient {
 public:
  explicit AdminClient(const std::filesystem::path& socket_path);
  ~AdminClient();
  AdminClient(const AdminClient&) = delete;
  AdminClient& operator=(const AdminClient&) = delete;
  std::string call(std::string_view line);

 private:
  int fd_ = -1;
  std::string buffer_;
};

}  // namespace lds
