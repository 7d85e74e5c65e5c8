// listener.cpp: the Kafka listener's socket, event loop and worker threads.
#include "kafka/listener.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "core/logging.h"

namespace lds::kafka {
namespace {

std::shared_ptr<spdlog::logger> log() {
  static auto l = logger("lds.kafka");
  return l;
}

// Bytes read ahead of the frame being handled, and replies queued for a client, beyond which the
// loop stops reading from that client until it catches up.
constexpr size_t kReadAhead = 1 << 20;
constexpr size_t kMaxPendingOutput = 4 << 20;

// The numeric host of `addr`, and its port.
std::pair<std::string, int32_t> host_and_port(const sockaddr_storage& addr) {
  char host[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
    return {host, ntohs(a->sin_port)};
  }
  if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
    return {host, ntohs(a->sin6_port)};
  }
  return {"?", 0};
}

// "127.0.0.1:9092", "[::1]:9092".
std::string address_text(const sockaddr_storage& addr) {
  auto [host, port] = host_and_port(addr);
  const bool ipv6 = host.find(':') != std::string::npos;
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

int32_t big_endian_int32(const std::string& bytes) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(bytes[i]);
  return static_cast<int32_t>(v);
}

}  // namespace

// Everything the threads use; a worker abandoned by stop() still finds its connection and the lock
// when its handler returns. The last reference closes the descriptors left.
struct KafkaListener::State {
  struct Connection {
    int fd = -1;
    std::string peer;
    std::string input;   // bytes read, not yet handled
    std::string output;  // replies not yet sent
    size_t output_sent = 0;
    bool busy = false;         // a worker is answering its frames
    bool peer_closed = false;  // end of stream: answer the complete frames, send, then close
    bool closing = false;      // send what is queued, then close
    bool dead = false;         // close as soon as no worker holds it
    size_t pending_output() const { return output.size() - output_sent; }
  };

  ~State();

  void event_loop();
  void accept_all();
  void read_from(const std::shared_ptr<Connection>& c);
  void write_to(const std::shared_ptr<Connection>& c);
  // Whether the first buffered frame is complete; marks the connection dead when its size is out
  // of bounds. mu held.
  bool frame_ready_locked(Connection& c);
  bool wants_input_locked(const Connection& c) const;
  void worker_loop();
  void handle(const std::shared_ptr<Connection>& c);
  void wake();

  Handler handler;
  int32_t max_frame_bytes = 0;
  int listen_fd = -1;
  int spare_fd = -1;  // given up to accept and close a connection when descriptors run out
  int wake_pipe[2] = {-1, -1};

  mutable std::mutex mu;  // guards everything below
  bool stopping = false;
  size_t workers_running = 0;
  std::condition_variable workers_done_cv;
  std::map<int, std::shared_ptr<Connection>> connections;
  std::deque<std::shared_ptr<Connection>> ready;
  std::condition_variable work_cv;
};

KafkaListener::State::~State() {
  for (auto& [fd, c] : connections) ::close(fd);
  if (listen_fd >= 0) ::close(listen_fd);
  if (spare_fd >= 0) ::close(spare_fd);
  for (int fd : wake_pipe) {
    if (fd >= 0) ::close(fd);
  }
}

KafkaListener::KafkaListener(Options options) : options_(std::move(options)) {
  state_ = std::make_shared<State>();
  State& st = *state_;
  st.max_frame_bytes = options_.max_frame_bytes;
  const std::string where =
      "listeners PLAINTEXT://" + options_.host + ":" + std::to_string(options_.port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG;
  addrinfo* found = nullptr;
  const int rc =
      ::getaddrinfo(options_.host.c_str(), std::to_string(options_.port).c_str(), &hints, &found);
  if (rc != 0) {
    throw std::runtime_error("Cannot listen on " + where + ": host " + options_.host +
                             " cannot be resolved (" + ::gai_strerror(rc) + ").");
  }
  std::string failure;
  for (addrinfo* a = found; a != nullptr && st.listen_fd < 0; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      failure = strerror(errno);
      continue;
    }
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 128) != 0) {
      failure = strerror(errno);
      ::close(fd);
      continue;
    }
    st.listen_fd = fd;
  }
  ::freeaddrinfo(found);
  if (st.listen_fd < 0)
    throw std::runtime_error("Cannot listen on " + where + ": " + failure + ".");
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  ::getsockname(st.listen_fd, reinterpret_cast<sockaddr*>(&bound), &len);
  bound_address_ = address_text(bound);
  std::tie(bound_host_, bound_port_) = host_and_port(bound);
  st.spare_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (::pipe2(st.wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    throw std::runtime_error(
        "Cannot create the Kafka listener's wake-up pipe: " + std::string(strerror(errno)) + ".");
  }
}

void KafkaListener::start(Handler handler) {
  State& st = *state_;
  st.handler = std::move(handler);
  const size_t workers = std::max<size_t>(options_.workers, 1);
  try {
    for (size_t i = 0; i < workers; ++i) {
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
    workers_.clear();
    throw std::runtime_error("Cannot start the Kafka listener's threads: " + std::string(e.what()) +
                             ".");
  }
  started_ = true;
  log()->info("Kafka listener on {}", bound_address_);
}

KafkaListener::~KafkaListener() { stop(); }

size_t KafkaListener::stop() {
  if (stopped_) return abandoned_;
  stopped_ = true;
  State& st = *state_;
  {
    std::lock_guard lock(st.mu);
    st.stopping = true;
  }
  st.wake();
  st.work_cv.notify_all();
  if (loop_.joinable()) loop_.join();
  {
    std::unique_lock lock(st.mu);
    st.workers_done_cv.wait_for(lock, kStopGrace, [&st] { return st.workers_running == 0; });
    abandoned_ = st.workers_running;
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
        "{} Kafka request handler(s) did not return within {} s of shutdown; leaving "
        "them behind.",
        abandoned_, kStopGrace.count());
    for (auto& w : workers_) w.detach();
  }
  state_.reset();
  return abandoned_;
}

size_t KafkaListener::connections() const {
  if (!state_) return 0;
  std::lock_guard lock(state_->mu);
  return state_->connections.size();
}

void KafkaListener::State::wake() {
  const char b = 1;
  (void)!::write(wake_pipe[1], &b, 1);
}

bool KafkaListener::State::frame_ready_locked(Connection& c) {
  if (c.dead || c.input.size() < 4) return false;
  const int32_t size = big_endian_int32(c.input);
  if (size < 0 || size > max_frame_bytes) {
    // Kafka's words for it (NetworkReceive), then ours.
    log()->warn(
        "Closing the Kafka connection from {}: Invalid receive (size = {} larger than {}); "
        "socket.request.max.bytes is {}.",
        c.peer, size, max_frame_bytes, max_frame_bytes);
    c.dead = true;
    c.input.clear();
    return false;
  }
  return c.input.size() >= 4 + static_cast<size_t>(size);
}

bool KafkaListener::State::wants_input_locked(const Connection& c) const {
  if (c.dead || c.closing || c.peer_closed || c.pending_output() >= kMaxPendingOutput) {
    return false;
  }
  if (c.input.size() < 4 || c.input.size() < kReadAhead) return true;
  // Past the read-ahead only to complete the first frame.
  return c.input.size() < 4 + static_cast<size_t>(big_endian_int32(c.input));
}

void KafkaListener::State::event_loop() {
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
        if (!c->busy && !c->closing && frame_ready_locked(*c)) {
          c->busy = true;
          ready.push_back(c);
          work_cv.notify_one();
        }
        if (!c->busy && c->peer_closed && !frame_ready_locked(*c)) c->closing = true;
        if (!c->busy && (c->dead || (c->closing && c->pending_output() == 0))) {
          ::close(c->fd);
          it = connections.erase(it);
          continue;
        }
        short events = 0;
        if (wants_input_locked(*c)) events |= POLLIN;
        if (c->pending_output() > 0 && !c->dead) events |= POLLOUT;
        if (events != 0) {
          fds.push_back({c->fd, events, 0});
          polled.push_back(c);
        }
        ++it;
      }
    }
    const int n = ::poll(fds.data(), fds.size(), 1000);
    if (n < 0 && errno != EINTR) {
      log()->error("Kafka listener poll failed: {}.", strerror(errno));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if ((fds[0].revents & POLLIN) != 0) {
      char drain[64];
      while (::read(wake_pipe[0], drain, sizeof drain) > 0) {
      }
    }
    if ((fds[1].revents & POLLIN) != 0) accept_all();
    for (size_t i = 0; i < polled.size(); ++i) {
      const short revents = fds[i + 2].revents;
      if ((revents & POLLOUT) != 0) write_to(polled[i]);
      if ((revents & (POLLIN | POLLHUP | POLLERR)) != 0) read_from(polled[i]);
    }
  }
}

void KafkaListener::State::accept_all() {
  for (;;) {
    sockaddr_storage peer{};
    socklen_t len = sizeof peer;
    int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&peer), &len,
                       SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0 && (errno == EMFILE || errno == ENFILE) && spare_fd >= 0) {
      // Out of descriptors: a pending connection would keep the socket readable and the loop
      // spinning. Give up the spare descriptor to accept it and close it at once.
      ::close(spare_fd);
      fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) ::close(fd);
      log()->warn("Refused a Kafka connection: out of file descriptors.");
      spare_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
      return;
    }
    if (fd < 0) return;  // EAGAIN: none left; or the client left before we took it
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto c = std::make_shared<Connection>();
    c->fd = fd;
    c->peer = address_text(peer);
    std::lock_guard lock(mu);
    connections.emplace(fd, std::move(c));
  }
}

void KafkaListener::State::read_from(const std::shared_ptr<Connection>& c) {
  char chunk[64 * 1024];
  std::lock_guard lock(mu);
  while (wants_input_locked(*c)) {
    const ssize_t n = ::recv(c->fd, chunk, sizeof chunk, MSG_DONTWAIT);
    if (n > 0) {
      c->input.append(chunk, static_cast<size_t>(n));
      if (c->input.size() >= 4 && !frame_ready_locked(*c) && c->dead) return;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    // End of stream or a socket error: answer what was asked, then close.
    c->peer_closed = true;
    return;
  }
}

void KafkaListener::State::write_to(const std::shared_ptr<Connection>& c) {
  std::lock_guard lock(mu);
  while (c->pending_output() > 0) {
    const ssize_t n = ::send(c->fd, c->output.data() + c->output_sent, c->pending_output(),
                             MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      c->output_sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    c->dead = true;  // the peer is gone
    return;
  }
  c->output.clear();
  c->output_sent = 0;
}

void KafkaListener::State::worker_loop() {
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
    wake();
  }
}

// Answers the connection's complete frames one after another, in order, until none is left.
void KafkaListener::State::handle(const std::shared_ptr<Connection>& c) {
  for (;;) {
    std::string frame;
    {
      std::lock_guard lock(mu);
      if (stopping || c->dead || c->closing || !frame_ready_locked(*c)) {
        c->busy = false;
        return;
      }
      const auto size = static_cast<size_t>(big_endian_int32(c->input));
      frame = c->input.substr(4, size);
      c->input.erase(0, 4 + size);
    }
    Reply reply;
    try {
      reply = handler(frame);
    } catch (const std::exception& e) {
      reply.frame.clear();
      reply.close_reason = std::string("the request failed: ") + e.what();
    }
    {
      std::lock_guard lock(mu);
      if (!reply.frame.empty()) {
        const auto size = static_cast<uint32_t>(reply.frame.size());
        for (int shift = 24; shift >= 0; shift -= 8) {
          c->output.push_back(static_cast<char>((size >> shift) & 0xFF));
        }
        c->output += reply.frame;
      }
      if (!reply.close_reason.empty()) {
        log()->warn("Closing the Kafka connection from {}: {}.", c->peer, reply.close_reason);
        c->closing = true;
        c->input.clear();
        c->busy = false;
        return;
      }
    }
    wake();  // the loop may start sending this reply while the next one is worked out
  }
}

}  // namespace lds::kafka
