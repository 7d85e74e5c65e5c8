// admin_server.cpp: the admin socket: binding it, its framing (one JSON request a line) and its
// messages; the event loop, limits and workers are a StreamServer's.
#include "admin/admin_server.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "admin/admin_api.h"
#include "admin/admin_logger.h"
#include "admin/unix_socket.h"
#include "io/heap_trim.h"

namespace lds {
namespace {

std::shared_ptr<spdlog::logger> log() { return admin_logger(); }

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

// Newline-delimited JSON: each line a request, each answer a line, written by the worker itself.
class AdminProtocol final : public StreamProtocol {
 public:
  AdminProtocol(AdminServer::Handler handler, AdminServer::Limits limits)
      : handler_(std::move(handler)), limits_(limits) {}

  // Reads until the connection's lines are handed to a worker; a little past one line's limit, so
  // a line too long is seen as such.
  bool more_input_wanted(const StreamConnection& c) const override {
    return !c.busy && c.input.size() <= 4 * AdminServer::kMaxLineBytes;
  }

  bool request_ready(StreamConnection& c) override {
    return c.input.find('\n') != std::string::npos || c.input.size() > AdminServer::kMaxLineBytes;
  }

  // The next non-blank line, without its "\r\n" or "\n". A line longer than the limit, kept or
  // already discarded, is taken as too large; a partial line longer than it is dropped.
  bool take_request(StreamConnection& c, StreamRequest& request) override {
    for (;;) {
      const size_t nl = c.input.find('\n');
      if (nl == std::string::npos) {
        if (c.input.size() > AdminServer::kMaxLineBytes) {
          c.discarding = true;
          c.input.clear();
        }
        return false;
      }
      std::string_view line(c.input.data(), nl);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (c.discarding || line.size() > AdminServer::kMaxLineBytes) {
        c.discarding = false;
        request.too_large = true;
      } else if (line.find_first_not_of(" \t") == std::string_view::npos) {
        c.input.erase(0, nl + 1);
        continue;
      } else {
        request.bytes = line;
      }
      c.input.erase(0, nl + 1);
      return true;
    }
  }

  StreamReply answer(const StreamConnection& /*c*/, StreamRequest request) override {
    StreamReply reply;
    reply.bytes = request.too_large ? too_long_response() : handler_(request.bytes);
    reply.bytes += '\n';
    // Its pages go back to the kernel: otherwise the broker's resident memory would stay at what
    // the largest answer took, long after it was sent.
    return_free_heap_after(reply.bytes.size());
    return reply;
  }

  bool queues_replies() const override { return false; }
  bool send_now(int fd, std::string_view reply) override {
    return unix_socket::send_all(fd, reply);
  }

  std::string accepted(int /*fd*/, const sockaddr_storage& /*peer*/) override { return {}; }

  void refuse(int fd, StreamRefusal why, size_t open) override {
    if (why == StreamRefusal::kOutOfDescriptors) {
      if (fd < 0) return;
      send_refusal(fd, "The broker has run out of file descriptors; the connection is closed.");
      log()->warn("Refused an admin connection: out of file descriptors ({}).", strerror(EMFILE));
      return;
    }
    send_refusal(fd, "The admin server already has admin.max.connections (" +
                         std::to_string(limits_.max_connections) +
                         ") connections open; the connection is closed.");
    log()->warn("Refused an admin connection: {} are open, admin.max.connections is {}.", open,
                limits_.max_connections);
  }

  void closing_idle(const StreamConnection& /*c*/) override {
    log()->info("Closing an admin connection idle for more than {} ms (admin.connection.idle.ms).",
                limits_.idle.count());
  }

  void abandoning(size_t handlers, std::chrono::seconds grace) override {
    log()->error(
        "{} admin request handler(s) did not return within {} s of shutdown (a thread may be stuck "
        "inside a strategy plugin); leaving them behind.",
        handlers, grace.count());
  }

 private:
  static void send_refusal(int fd, const std::string& why) {
    const std::string line = error_response(ErrorCode::kInvalidRequest, why).dump() + "\n";
    (void)unix_socket::send_all(fd, line, std::chrono::milliseconds(100));
  }

  const AdminServer::Handler handler_;
  const AdminServer::Limits limits_;
};

}  // namespace

AdminServer::AdminServer(std::filesystem::path socket_path, Handler handler, Limits limits)
    : path_(std::move(socket_path)), limits_(limits) {
  limits_.max_connections = std::max<size_t>(limits_.max_connections, 1);
  limits_.workers = std::max<size_t>(limits_.workers, 1);
  const sockaddr_un addr = unix_socket::address_of(path_);
  check_socket_folder(path_);
  struct stat existing {};
  if (::lstat(path_.c_str(), &existing) == 0) {
    if (!S_ISSOCK(existing.st_mode)) {
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
  const int listen_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (listen_fd < 0) {
    throw std::runtime_error("Cannot create the admin socket: " + std::string(strerror(errno)));
  }
  const mode_t old_mask = ::umask(0077);
  int rc = ::bind(listen_fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  int err = errno;
  ::umask(old_mask);
  if (rc != 0 || ::chmod(path_.c_str(), 0600) != 0 || ::listen(listen_fd, 64) != 0) {
    if (rc == 0) err = errno;
    if (rc == 0) ::unlink(path_.c_str());
    ::close(listen_fd);
    throw std::runtime_error("Cannot listen on admin.socket " + path_.string() + ": " +
                             strerror(err) + ".");
  }
  try {
    server_ = std::make_unique<StreamServer>(
        listen_fd, std::make_shared<AdminProtocol>(std::move(handler), limits_),
        StreamServer::Options{.name = "admin server",
                              .log = log(),
                              .workers = limits_.workers,
                              .max_connections = limits_.max_connections,
                              .idle = limits_.idle,
                              .stop_grace = kStopGrace});
    server_->start();
  } catch (...) {
    server_.reset();
    ::unlink(path_.c_str());
    throw;
  }
  log()->info("Admin API listening on {} (at most {} connections, idle ones closed after {} ms).",
              path_.string(), limits_.max_connections, limits_.idle.count());
}

AdminServer::~AdminServer() { stop(); }

size_t AdminServer::stop() {
  if (stopped_) return server_->stop();
  stopped_ = true;
  const size_t abandoned = server_->stop();
  ::unlink(path_.c_str());
  return abandoned;
}

size_t AdminServer::connections() const { return server_->connections(); }

}  // namespace lds
