// admin_server.cpp: the Unix-socket transport of the admin protocol, server and client.
#include "admin/admin_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "admin/admin_api.h"
#include "core/logging.h"

namespace lds {
namespace {

std::shared_ptr<spdlog::logger> log() {
  static auto l = logger("lds.admin");
  return l;
}

sockaddr_un address_of(const std::filesystem::path& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string s = path.string();
  if (s.size() >= sizeof(addr.sun_path)) {
    throw std::runtime_error("admin.socket path " + s + " is too long for a Unix socket (" +
                             std::to_string(s.size()) + " bytes, at most " +
                             std::to_string(sizeof(addr.sun_path) - 1) + ").");
  }
  std::memcpy(addr.sun_path, s.c_str(), s.size() + 1);
  return addr;
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
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

AdminServer::AdminServer(std::filesystem::path socket_path, Handler handler)
    : path_(std::move(socket_path)), handler_(std::move(handler)) {
  const sockaddr_un addr = address_of(path_);
  check_socket_folder(path_);
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      throw std::runtime_error("admin.socket path " + path_.string() +
                               " exists and is not a socket; remove it or choose another path.");
    }
    int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool live = probe >= 0 &&
                ::connect(probe, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
    if (probe >= 0) ::close(probe);
    if (live) {
      throw std::runtime_error("Another server is already listening on admin.socket " +
                               path_.string() + ".");
    }
    ::unlink(path_.c_str());  // stale, from a server that died
  }
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw std::runtime_error("Cannot create the admin socket: " + std::string(strerror(errno)));
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
  if (::pipe2(wake_pipe_, O_CLOEXEC) != 0) {
    ::close(listen_fd_);
    ::unlink(path_.c_str());
    throw std::runtime_error("Cannot create the admin server's wake-up pipe.");
  }
  acceptor_ = std::thread([this] { accept_loop(); });
  log()->info("Admin API listening on {}.", path_.string());
}

AdminServer::~AdminServer() {
  stopping_ = true;
  char b = 1;
  (void)!::write(wake_pipe_[1], &b, 1);
  acceptor_.join();
  {
    std::lock_guard lock(connections_mu_);
    for (auto& c : connections_) ::shutdown(c.fd, SHUT_RDWR);
  }
  for (auto& c : connections_) {
    c.thread.join();
    ::close(c.fd);
  }
  ::close(listen_fd_);
  ::close(wake_pipe_[0]);
  ::close(wake_pipe_[1]);
  ::unlink(path_.c_str());
}

void AdminServer::reap_finished() {
  std::lock_guard lock(connections_mu_);
  for (auto it = connections_.begin(); it != connections_.end();) {
    if (it->done) {
      it->thread.join();
      ::close(it->fd);
      it = connections_.erase(it);
    } else {
      ++it;
    }
  }
}

void AdminServer::accept_loop() {
  while (!stopping_) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_pipe_[0], POLLIN, 0}};
    int n = ::poll(fds, 2, 1000);
    reap_finished();
    if (n <= 0 || (fds[1].revents & POLLIN) != 0) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::lock_guard lock(connections_mu_);
    Connection& c = connections_.emplace_back();
    c.fd = fd;
    c.thread = std::thread([this, &c] { serve(&c); });
  }
}

void AdminServer::serve(Connection* c) {
  std::string buffer;
  bool discarding = false;  // inside a line that is already too long
  char chunk[64 * 1024];
  while (!stopping_) {
    ssize_t n = ::recv(c->fd, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buffer.append(chunk, static_cast<size_t>(n));
    size_t start = 0;
    bool ok = true;
    for (size_t nl; ok && (nl = buffer.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string_view line(buffer.data() + start, nl - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      std::string response;
      if (discarding) {
        discarding = false;
        response = too_long_response();
      } else if (line.size() > kMaxLineBytes) {
        response = too_long_response();
      } else if (line.find_first_not_of(" \t") == std::string_view::npos) {
        continue;
      } else {
        response = handler_(line);
      }
      response += '\n';
      ok = write_all(c->fd, response);
    }
    if (!ok) break;
    buffer.erase(0, start);
    if (buffer.size() > kMaxLineBytes) {
      discarding = true;
      buffer.clear();
    }
  }
  c->done = true;
}

AdminClient::AdminClient(const std::filesystem::path& socket_path) {
  const sockaddr_un addr = address_of(socket_path);
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0 || ::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    int err = errno;
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
  if (!write_all(fd_, request)) throw std::runtime_error("The admin server closed the connection.");
  char chunk[64 * 1024];
  for (;;) {
    auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string response = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return response;
    }
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("The admin server closed the connection.");
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

}  // namespace lds
