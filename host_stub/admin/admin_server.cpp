// admin_server.cpp: the admin socket's event loop, connection limits and handler threads.
#include "admin/admin_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "admin/admin_api.h"
#include "admin/unix_socket.h"
#include "core/logging.h"

namespace lds {
namespace {

std::shared_ptr<spdlog::logger> log() {
  static auto l = logger("lds.admin");
  return l;
}

// The socket's folder must be the server's (or root's) and not open to other users: whoever may
// rename or unlink entries in it could replace the socket with one of their own, and clients would
// then send their requests to an impostor. A world-writable folder with the sticky bit (/tmp) is
// fine, as only an entry's owner may remove it there. Throws std::runtime_error saying why.
void check_socket_folder(const std::filesystem::path& socket_path) {
  const std::filesystem::path folder =
      socket_path.has_parent_path() ? socket_path.parent_path() : std::filesystem::path(".");
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) {
    throw std::runtime_error("Cannot listen on admin.socket " + socket_path.string() +
                             ": its folder " + folder.string() +
                             " cannot be read: " + strerror(errno) + ".");
  }
  if (st.st_uid != 0 && st.st_uid != ::geteuid()) {
    throw std::runtime_error("admin.socket " + socket_path.string() + " is refused: its folder " +
                             folder.string() + " is owned by uid " + std::to_string(st.st_uid) +
                             ", not by root or by this server's user.");
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0) {
    throw std::runtime_error("admin.socket " + socket_path.string() + " is refused: its folder " +
                             folder.string() +
                             " is writable by group or others without the sticky bit, so another "
                             "user could replace the socket (chmod go-w to fix).");
  }
}

std::string too_long_response() {
  return error_response(ErrorCode::kInvalidRequest, "The request line is longer than " +
                                                        std::to_string(AdminServer::kMaxLineBytes) +
                                                        " bytes.")
      .dump();
}

}  // namespace

AdminServer::AdminServer(std::filesystem::path socket_path, Handler handler, Limits limits)
    : path_(std::move(socket_path)), handler_(std::move(handler)), limits_(limits) {
  limits_.max_connections = std::max<size_t>(limits_.max_connections, 1);
  limits_.workers = std::max<size_t>(limits_.workers, 1);
  const sockaddr_un addr = unix_socket::address_of(path_);
  check_socket_folder(path_);
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      throw std::runtime_error("admin.socket path " + path_.string() +
                               " exists and is not a socket; remove it or choose another path.");
    }
    int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool live =
        probe >= 0 && ::connect(probe, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
    if (probe >= 0) ::close(probe);
    if (live) {
      throw std::runtime_error("Another server is already listening on admin.socket " +
                               path_.string() + ".");
    }
    ::unlink(path_.c_str());  // stale, from a server that died
  }
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (listen_fd_ < 0) {
    throw std::runtime_error("Cannot create the admin socket: " + std::string(strerror(errno)));
  }
  const mode_t old_mask = ::umask(0077);
  int rc = ::bind(listen_fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  int err = errno;
  ::umask(old_mask);
  if (rc != 0 || ::chmod(path_.c_str(), 0600) != 0 || ::listen(listen_fd_, 64) != 0) {
    if (rc == 0) err = errno;
    ::close(listen_fd_);
    if (rc == 0) ::unlink(path_.c_str());
    throw std::runtime_error("Cannot listen on admin.socket " + path_.string() + ": " +
                             strerror(err) + ".");
  }
  spare_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (::pipe2(wake_pipe_, O_CLOEXEC | O_NONBLOCK) != 0) {
    ::close(listen_fd_);
    if (spare_fd_ >= 0) ::close(spare_fd_);
    ::unlink(path_.c_str());
    throw std::runtime_error(
        "Cannot create the admin server's wake-up pipe: " + std::string(strerror(errno)) + ".");
  }
  try {
    for (size_t i = 0; i < limits_.workers; ++i) workers_.emplace_back([this] { worker_loop(); });
    loop_ = std::thread([this] { event_loop(); });
  } catch (const std::system_error& e) {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    work_cv_.notify_all();
    for (auto& w : workers_) w.join();
    ::close(listen_fd_);
    if (spare_fd_ >= 0) ::close(spare_fd_);
    ::close(wake_pipe_[0]);
    ::close(wake_pipe_[1]);
    ::unlink(path_.c_str());
    throw std::runtime_error("Cannot start the admin server's threads: " + std::string(e.what()) +
                             ".");
  }
  log()->info("Admin API listening on {} (at most {} connections, idle ones closed after {} ms).",
              path_.string(), limits_.max_connections, limits_.idle.count());
}

AdminServer::~AdminServer() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake();
  work_cv_.notify_all();
  loop_.join();
  for (auto& w : workers_) w.join();
  for (auto& [fd, c] : connections_) ::close(fd);
  connections_.clear();
  ::close(listen_fd_);
  if (spare_fd_ >= 0) ::close(spare_fd_);
  ::close(wake_pipe_[0]);
  ::close(wake_pipe_[1]);
  ::unlink(path_.c_str());
}

size_t AdminServer::connections() const {
  std::lock_guard lock(mu_);
  return connections_.size();
}

void AdminServer::wake() {
  const char b = 1;
  (void)!::write(wake_pipe_[1], &b, 1);
}

void AdminServer::event_loop() {
  std::vector<pollfd> fds;
  std::vector<std::shared_ptr<Connection>> polled;
  for (;;) {
    fds.clear();
    polled.clear();
    fds.push_back({wake_pipe_[0], POLLIN, 0});
    fds.push_back({listen_fd_, POLLIN, 0});
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
      for (auto it = connections_.begin(); it != connections_.end();) {
        const std::shared_ptr<Connection>& c = it->second;
        if (c->closing && !c->busy) {
          ::close(c->fd);
          it = connections_.erase(it);
          continue;
        }
        if (!c->busy) {
          fds.push_back({c->fd, POLLIN, 0});
          polled.push_back(c);
        }
        ++it;
      }
    }
    // Wake at least once a second to close idle connections.
    const int n = ::poll(fds.data(), fds.size(), 1000);
    if (n < 0 && errno != EINTR) {
      log()->error("Admin server poll failed: {}.", strerror(errno));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if ((fds[0].revents & POLLIN) != 0) {
      char drain[64];
      while (::read(wake_pipe_[0], drain, sizeof drain) > 0) {
      }
    }
    if ((fds[1].revents & POLLIN) != 0) accept_one();
    for (size_t i = 0; i < polled.size(); ++i) {
      if (fds[i + 2].revents != 0) read_from(polled[i]);
    }
    close_idle(std::chrono::steady_clock::now());
  }
}

void AdminServer::refuse(int fd, const std::string& why) {
  const std::string line = error_response(ErrorCode::kInvalidRequest, why).dump() + "\n";
  (void)unix_socket::send_all(fd, line, std::chrono::milliseconds(100));
  ::close(fd);
}

void AdminServer::accept_one() {
  int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd < 0 && (errno == EMFILE || errno == ENFILE) && spare_fd_ >= 0) {
    // Out of descriptors: the pending connection would keep the listening socket readable and the
    // loop spinning. Give up the spare descriptor for a moment to accept it and say why.
    ::close(spare_fd_);
    spare_fd_ = -1;
    fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) {
      refuse(fd, "The broker has run out of file descriptors; the connection is closed.");
      log()->warn("Refused an admin connection: out of file descriptors ({}).", strerror(EMFILE));
    }
    spare_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    return;
  }
  if (fd < 0) return;  // the client left before we took it, or a transient error
  std::lock_guard lock(mu_);
  size_t open = connections_.size();
  if (open >= limits_.max_connections) open = reap_closed_locked();
  if (open >= limits_.max_connections) {
    refuse(fd, "The admin server already has admin.max.connections (" +
                   std::to_string(limits_.max_connections) +
                   ") connections open; the connection is closed.");
    log()->warn("Refused an admin connection: {} are open, admin.max.connections is {}.",
                connections_.size(), limits_.max_connections);
    return;
  }
  auto c = std::make_shared<Connection>();
  c->fd = fd;
  c->last_active = std::chrono::steady_clock::now();
  connections_.emplace(fd, std::move(c));
}

// A client that closed its connection and opened a new one must not count twice: the loop may not
// have seen the close yet, and a worker may still be finishing the old connection's last answer.
// Peeks at every connection for end-of-file, closes the idle ones that ended, and returns how many
// are still open.
size_t AdminServer::reap_closed_locked() {
  size_t open = 0;
  for (auto it = connections_.begin(); it != connections_.end();) {
    const std::shared_ptr<Connection>& c = it->second;
    char byte = 0;
    if (!c->closing && ::recv(c->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0) c->closing = true;
    if (c->closing && !c->busy) {
      ::close(c->fd);
      it = connections_.erase(it);
      continue;
    }
    if (!c->closing) ++open;
    ++it;
  }
  return open;
}

void AdminServer::read_from(const std::shared_ptr<Connection>& c) {
  char chunk[64 * 1024];
  bool eof = false;
  std::string fresh;
  for (;;) {
    const ssize_t n = ::recv(c->fd, chunk, sizeof chunk, 0);
    if (n > 0) {
      fresh.append(chunk, static_cast<size_t>(n));
      if (fresh.size() > 4 * kMaxLineBytes) break;  // handle what we have first
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    eof = true;  // closed by the peer, or a socket error
    break;
  }
  std::lock_guard lock(mu_);
  c->input += fresh;
  c->last_active = std::chrono::steady_clock::now();
  if (c->input.find('\n') != std::string::npos || c->input.size() > kMaxLineBytes) {
    c->busy = true;
    ready_.push_back(c);
    work_cv_.notify_one();
  }
  if (eof) c->closing = true;
}

void AdminServer::close_idle(std::chrono::steady_clock::time_point now) {
  std::lock_guard lock(mu_);
  for (auto& [fd, c] : connections_) {
    if (!c->busy && !c->closing && now - c->last_active > limits_.idle) {
      log()->info(
          "Closing an admin connection idle for more than {} ms (admin.connection.idle.ms).",
          limits_.idle.count());
      c->closing = true;
    }
  }
}

void AdminServer::worker_loop() {
  for (;;) {
    std::shared_ptr<Connection> c;
    {
      std::unique_lock lock(mu_);
      work_cv_.wait(lock, [this] { return stopping_ || !ready_.empty(); });
      if (stopping_) return;
      c = std::move(ready_.front());
      ready_.pop_front();
    }
    handle(c);
    {
      std::lock_guard lock(mu_);
      c->busy = false;
      c->last_active = std::chrono::steady_clock::now();
    }
    wake();
  }
}

// Answers every complete line of one connection, in order. Only this worker touches c->input while
// c->busy is set.
void AdminServer::handle(const std::shared_ptr<Connection>& c) {
  std::string buffer;
  {
    std::lock_guard lock(mu_);
    buffer.swap(c->input);
  }
  size_t start = 0;
  bool ok = true;
  for (size_t nl; ok && (nl = buffer.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::string_view line(buffer.data() + start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string response;
    if (c->discarding) {
      c->discarding = false;
      response = too_long_response();
    } else if (line.size() > kMaxLineBytes) {
      response = too_long_response();
    } else if (line.find_first_not_of(" \t") == std::string_view::npos) {
      continue;
    } else {
      response = handler_(line);
    }
    response += '\n';
    ok = unix_socket::send_all(c->fd, response);
  }
  buffer.erase(0, start);
  if (buffer.size() > kMaxLineBytes) {
    c->discarding = true;
    buffer.clear();
  }
  std::lock_guard lock(mu_);
  c->input.insert(0, buffer);  // a partial line waits for the rest
  if (!ok) c->closing = true;
}

}  // namespace lds
