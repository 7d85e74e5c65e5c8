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
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
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

// Everything the threads use. Each thread holds a reference, so a worker abandoned by stop() still
// finds its connection, the lock and the wake-up pipe when its handler returns; the last reference
// to go closes the descriptors left.
struct AdminServer::State {
  struct Connection {
    int fd = -1;
    std::string input;        // bytes read, not yet handled
    bool discarding = false;  // inside a line that is already too long
    bool busy = false;        // a worker is handling its lines
    bool closing = false;     // the peer is gone or did not read; close when not busy
    std::chrono::steady_clock::time_point last_active;
  };

  State(Handler request_handler, Limits server_limits)
      : handler(std::move(request_handler)), limits(server_limits) {}
  ~State();
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  void event_loop();
  void accept_one();
  void read_from(const std::shared_ptr<Connection>& c);
  void close_idle(std::chrono::steady_clock::time_point now);
  size_t reap_closed_locked();  // mu held
  void worker_loop();
  void handle(const std::shared_ptr<Connection>& c);
  void refuse(int fd, const std::string& why);
  void wake();

  const Handler handler;
  Limits limits;
  int listen_fd = -1;
  int spare_fd = -1;  // given up to accept and refuse a connection when descriptors run out
  int wake_pipe[2] = {-1, -1};

  mutable std::mutex mu;  // guards everything below
  bool stopping = false;
  size_t workers_running = 0;  // workers started whose loop has not returned
  std::condition_variable workers_done_cv;
  std::map<int, std::shared_ptr<Connection>> connections;
  std::deque<std::shared_ptr<Connection>> ready;  // connections with complete lines to handle
  std::condition_variable work_cv;
};

AdminServer::State::~State() {
  for (auto& [fd, c] : connections) ::close(fd);
  if (listen_fd >= 0) ::close(listen_fd);
  if (spare_fd >= 0) ::close(spare_fd);
  for (int fd : wake_pipe) {
    if (fd >= 0) ::close(fd);
  }
}

AdminServer::AdminServer(std::filesystem::path socket_path, Handler handler, Limits limits)
    : path_(std::move(socket_path)) {
  limits.max_connections = std::max<size_t>(limits.max_connections, 1);
  limits.workers = std::max<size_t>(limits.workers, 1);
  state_ = std::make_shared<State>(std::move(handler), limits);
  State& st = *state_;
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
  // From here on, a failure leaves descriptors to ~State (state_ goes with this object).
  st.listen_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (st.listen_fd < 0) {
    throw std::runtime_error("Cannot create the admin socket: " + std::string(strerror(errno)));
  }
  const mode_t old_mask = ::umask(0077);
  int rc = ::bind(st.listen_fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  int err = errno;
  ::umask(old_mask);
  if (rc != 0 || ::chmod(path_.c_str(), 0600) != 0 || ::listen(st.listen_fd, 64) != 0) {
    if (rc == 0) err = errno;
    if (rc == 0) ::unlink(path_.c_str());
    throw std::runtime_error("Cannot listen on admin.socket " + path_.string() + ": " +
                             strerror(err) + ".");
  }
  st.spare_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (::pipe2(st.wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    ::unlink(path_.c_str());
    throw std::runtime_error(
        "Cannot create the admin server's wake-up pipe: " + std::string(strerror(errno)) + ".");
  }
  try {
    for (size_t i = 0; i < st.limits.workers; ++i) {
      {
        std::lock_guard lock(st.mu);
        ++st.workers_running;
      }
      try {
        workers_.emplace_back([state = state_] { state->worker_loop(); });
      } catch (...) {
        std::lock_guard lock(st.mu);
        --st.workers_running;
        throw;
      }
    }
    loop_ = std::thread([state = state_] { state->event_loop(); });
  } catch (const std::system_error& e) {
    {
      std::lock_guard lock(st.mu);
      st.stopping = true;
    }
    st.work_cv.notify_all();
    for (auto& w : workers_) w.join();
    ::unlink(path_.c_str());
    throw std::runtime_error("Cannot start the admin server's threads: " + std::string(e.what()) +
                             ".");
  }
  log()->info("Admin API listening on {} (at most {} connections, idle ones closed after {} ms).",
              path_.string(), st.limits.max_connections, st.limits.idle.count());
}

AdminServer::~AdminServer() { stop(); }

size_t AdminServer::stop() {
  if (stopped_) return abandoned_;
  stopped_ = true;
  State& st = *state_;
  {
    std::lock_guard lock(st.mu);
    st.stopping = true;
  }
  st.wake();
  st.work_cv.notify_all();
  loop_.join();
  {
    std::unique_lock lock(st.mu);
    st.workers_done_cv.wait_for(lock, kStopGrace, [&st] { return st.workers_running == 0; });
    abandoned_ = st.workers_running;
    // Clients of idle connections see them close now; a connection still in a handler stays open
    // for the worker that will answer it, should it ever return.
    for (auto it = st.connections.begin(); it != st.connections.end();) {
      if (it->second->busy) {
        ++it;
        continue;
      }
      ::close(it->first);
      it = st.connections.erase(it);
    }
    ::close(st.listen_fd);
    st.listen_fd = -1;
  }
  if (abandoned_ == 0) {
    for (auto& w : workers_) w.join();
  } else {
    log()->error(
        "{} admin request handler(s) did not return within {} s of shutdown (a thread may be stuck "
        "inside a strategy plugin); leaving them behind.",
        abandoned_, kStopGrace.count());
    for (auto& w : workers_) w.detach();
  }
  ::unlink(path_.c_str());
  state_.reset();  // with no worker left behind, this closes every remaining descriptor
  return abandoned_;
}

size_t AdminServer::connections() const {
  if (!state_) return 0;
  std::lock_guard lock(state_->mu);
  return state_->connections.size();
}

void AdminServer::State::wake() {
  const char b = 1;
  (void)!::write(wake_pipe[1], &b, 1);
}

void AdminServer::State::event_loop() {
  std::vector<pollfd> fds;
  std::vector<std::shared_ptr<Connection>> polled;
  for (;;) {
    fds.clear();
    polled.clear();
    fds.push_back({wake_pipe[0], POLLIN, 0});
    fds.push_back({listen_fd, POLLIN, 0});
    {
      std::lock_guard lock(mu);
      if (stopping) return;
      for (auto it = connections.begin(); it != connections.end();) {
        const std::shared_ptr<Connection>& c = it->second;
        if (c->closing && !c->busy) {
          ::close(c->fd);
          it = connections.erase(it);
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
      while (::read(wake_pipe[0], drain, sizeof drain) > 0) {
      }
    }
    if ((fds[1].revents & POLLIN) != 0) accept_one();
    for (size_t i = 0; i < polled.size(); ++i) {
      if (fds[i + 2].revents != 0) read_from(polled[i]);
    }
    close_idle(std::chrono::steady_clock::now());
  }
}

void AdminServer::State::refuse(int fd, const std::string& why) {
  const std::string line = error_response(ErrorCode::kInvalidRequest, why).dump() + "\n";
  (void)unix_socket::send_all(fd, line, std::chrono::milliseconds(100));
  ::close(fd);
}

void AdminServer::State::accept_one() {
  int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd < 0 && (errno == EMFILE || errno == ENFILE) && spare_fd >= 0) {
    // Out of descriptors: the pending connection would keep the listening socket readable and the
    // loop spinning. Give up the spare descriptor for a moment to accept it and say why.
    ::close(spare_fd);
    spare_fd = -1;
    fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) {
      refuse(fd, "The broker has run out of file descriptors; the connection is closed.");
      log()->warn("Refused an admin connection: out of file descriptors ({}).", strerror(EMFILE));
    }
    spare_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    return;
  }
  if (fd < 0) return;  // the client left before we took it, or a transient error
  std::lock_guard lock(mu);
  size_t open = connections.size();
  if (open >= limits.max_connections) open = reap_closed_locked();
  if (open >= limits.max_connections) {
    refuse(fd, "The admin server already has admin.max.connections (" +
                   std::to_string(limits.max_connections) +
                   ") connections open; the connection is closed.");
    log()->warn("Refused an admin connection: {} are open, admin.max.connections is {}.",
                connections.size(), limits.max_connections);
    return;
  }
  auto c = std::make_shared<Connection>();
  c->fd = fd;
  c->last_active = std::chrono::steady_clock::now();
  connections.emplace(fd, std::move(c));
}

// A client that closed its connection and opened a new one must not count twice: the loop may not
// have seen the close yet, and a worker may still be finishing the old connection's last answer.
// Peeks at every connection for end-of-file, closes the idle ones that ended, and returns how many
// are still open.
size_t AdminServer::State::reap_closed_locked() {
  size_t open = 0;
  for (auto it = connections.begin(); it != connections.end();) {
    const std::shared_ptr<Connection>& c = it->second;
    char byte = 0;
    if (!c->closing && ::recv(c->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0) c->closing = true;
    if (c->closing && !c->busy) {
      ::close(c->fd);
      it = connections.erase(it);
      continue;
    }
    if (!c->closing) ++open;
    ++it;
  }
  return open;
}

void AdminServer::State::read_from(const std::shared_ptr<Connection>& c) {
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
  std::lock_guard lock(mu);
  c->input += fresh;
  c->last_active = std::chrono::steady_clock::now();
  if (c->input.find('\n') != std::string::npos || c->input.size() > kMaxLineBytes) {
    c->busy = true;
    ready.push_back(c);
    work_cv.notify_one();
  }
  if (eof) c->closing = true;
}

void AdminServer::State::close_idle(std::chrono::steady_clock::time_point now) {
  std::lock_guard lock(mu);
  for (auto& [fd, c] : connections) {
    if (!c->busy && !c->closing && now - c->last_active > limits.idle) {
      log()->info(
          "Closing an admin connection idle for more than {} ms (admin.connection.idle.ms).",
          limits.idle.count());
      c->closing = true;
    }
  }
}

void AdminServer::State::worker_loop() {
  for (;;) {
    std::shared_ptr<Connection> c;
    {
      std::unique_lock lock(mu);
      work_cv.wait(lock, [this] { return stopping || !ready.empty(); });
      if (stopping) {
        --workers_running;
        workers_done_cv.notify_all();
        return;
      }
      c = std::move(ready.front());
      ready.pop_front();
    }
    handle(c);
    {
      std::lock_guard lock(mu);
      c->busy = false;
      c->last_active = std::chrono::steady_clock::now();
    }
    wake();
  }
}

// Answers every complete line of one connection, in order. Only this worker touches c->input while
// c->busy is set.
void AdminServer::State::handle(const std::shared_ptr<Connection>& c) {
  std::string buffer;
  {
    std::lock_guard lock(mu);
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
      response = handler(line);
    }
    response += '\n';
    ok = unix_socket::send_all(c->fd, response);
  }
  buffer.erase(0, start);
  if (buffer.size() > kMaxLineBytes) {
    c->discarding = true;
    buffer.clear();
  }
  std::lock_guard lock(mu);
  c->input.insert(0, buffer);  // a partial line waits for the rest
  if (!ok) c->closing = true;
}

}  // namespace lds
