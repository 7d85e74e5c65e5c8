// stream_server.cpp: the stream server's event loop, connection limits and worker threads.
#include "net/stream_server.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <stdexcept>
#include <system_error>
#include <utility>
#include <vector>

#include "util/mutex.h"

namespace lds {
namespace {

// Queued replies beyond which the loop stops reading from a client until it catches up.
constexpr size_t kMaxPendingOutput = 4 << 20;

// A connection's buffers larger than this are given back once empty: one large request or reply
// must not leave its connection holding that much for ever.
constexpr size_t kKeptCapacity = 64 << 10;

void give_back_if_large(std::string& buffer) {
  if (buffer.empty() && buffer.capacity() > kKeptCapacity) std::string().swap(buffer);
}

// sendfile(2) to a client that has gone raises SIGPIPE (send(2) is told not to): the event loop's
// thread keeps it blocked, so it never ends the process.
void block_sigpipe() {
  sigset_t pipe_signal;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
}

}  // namespace

// Everything the threads use. Each thread holds a reference, so a worker abandoned by stop() still
// finds its connection, the lock and the wake-up pipe when its answer is done; the last reference
// to go closes the descriptors left.
struct StreamServer::State {
  using Clock = std::chrono::steady_clock;

  State(std::shared_ptr<StreamProtocol> server_protocol, Options server_options)
      : protocol(std::move(server_protocol)), options(std::move(server_options)) {}
  ~State();
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  using Connections = std::map<int, std::shared_ptr<StreamConnection>>;

  void event_loop();
  // Hands each connection whose next request is due to its lane's workers, closes those that are
  // done, and lists in `fds` and `polled` those the loop waits on; brings `next_wake` forward to
  // the first parked request due. mu held.
  void dispatch_and_watch_locked(Clock::time_point now, Clock::time_point& next_wake,
                                 std::vector<pollfd>& fds,
                                 std::vector<std::shared_ptr<StreamConnection>>& polled)
      REQUIRES(mu);
  // Logs that poll(2) failed (errno) and pauses, so that a lasting failure does not spin.
  void log_poll_failure();
  // Acts on what poll(2) reported: the wake-up pipe, the listening socket, then each connection
  // of `polled`, whose descriptors follow those two in `fds`.
  void handle_events(const std::vector<pollfd>& fds,
                     const std::vector<std::shared_ptr<StreamConnection>>& polled);
  void accept_all();
  size_t reap_closed_locked() REQUIRES(mu);  // mu held
  // Closes the connection's descriptor and forgets it; returns the next one. mu held.
  Connections::iterator erase_locked(Connections::iterator it) REQUIRES(mu);
  // Past max_connections (lowered since they opened): closes the least recently active
  // connections until the rest fit; one being answered closes after its answer. mu held.
  void shed_excess_locked() REQUIRES(mu);
  bool wants_input_locked(StreamConnection& c) const REQUIRES(mu);
  // Whether the connection's unsent replies leave room for answering its next request. mu held.
  bool may_answer_locked(const StreamConnection& c) const REQUIRES(mu);
  // Queues the reply's bytes and splices as the connection's next reply. mu held.
  void queue_reply_locked(StreamConnection& c, StreamReply& reply) REQUIRES(mu);
  void read_from(const std::shared_ptr<StreamConnection>& c);
  void write_to(const std::shared_ptr<StreamConnection>& c);
  void close_idle(Clock::time_point now);
  // The pool that answers `c`'s next request: the slow one for what the protocol calls slow, when
  // there is a slow pool. mu held.
  Lane lane_of_locked(StreamConnection& c) const REQUIRES(mu);
  void worker_loop(Lane lane);
  void serve(const std::shared_ptr<StreamConnection>& c, Lane lane);
  void wake();

  const std::shared_ptr<StreamProtocol> protocol;
  const Options options;
  int listen_fd = -1;
  int spare_fd = -1;  // given up to accept and refuse a connection when descriptors run out
  int wake_pipe[2] = {-1, -1};

  // Guards everything below, and the fields of each connection that StreamConnection says it
  // guards (the analysis does not follow those: they belong to another object).
  mutable Mutex mu;
  bool stopping GUARDED_BY(mu) = false;
  size_t workers_running GUARDED_BY(mu) = 0;  // workers started whose loop has not returned
  CondVar workers_done_cv;
  Connections connections GUARDED_BY(mu);
  // options.max_connections, or what set_max_connections() made it
  size_t max_connections GUARDED_BY(mu) = 0;
  size_t unsent GUARDED_BY(mu) = 0;  // pending_output() of every connection, added up
  // When a loop waiting at max_connections looks for closed ones.
  Clock::time_point next_reap GUARDED_BY(mu){};
  // Connections with requests to answer, and the wake-up of the workers that answer them, by lane.
  std::deque<std::shared_ptr<StreamConnection>> ready[2] GUARDED_BY(mu);
  CondVar work_cv[2];
  uint64_t wake_generation GUARDED_BY(mu) = 0;  // counts wake_parked() calls
};

StreamServer::State::~State() {
  for (auto& [fd, c] : connections) ::close(fd);
  if (listen_fd >= 0) ::close(listen_fd);
  if (spare_fd >= 0) ::close(spare_fd);
  for (int fd : wake_pipe) {
    if (fd >= 0) ::close(fd);
  }
}

StreamServer::StreamServer(int listen_fd, std::shared_ptr<StreamProtocol> protocol,
                           Options options) {
  try {
    state_ = std::make_shared<State>(std::move(protocol), std::move(options));
  } catch (...) {
    ::close(listen_fd);
    throw;
  }
  State& st = *state_;
  st.listen_fd = listen_fd;
  st.max_connections = st.options.max_connections;
  st.spare_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (::pipe2(st.wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    throw std::runtime_error("Cannot create the " + st.options.name +
                             "'s wake-up pipe: " + std::string(strerror(errno)) + ".");
  }
}

void StreamServer::start() {
  State& st = *state_;
  const size_t workers = std::max<size_t>(st.options.workers, 1);
  try {
    for (size_t i = 0; i < workers + st.options.slow_workers; ++i) {
      {
        MutexLock lock(st.mu);
        ++st.workers_running;
      }
      const Lane lane = i < workers ? Lane::kFast : Lane::kSlow;
      try {
        workers_.emplace_back([state = state_, lane] { state->worker_loop(lane); });
      } catch (...) {
        MutexLock lock(st.mu);
        --st.workers_running;
        throw;
      }
    }
    loop_ = std::thread([state = state_] { state->event_loop(); });
  } catch (const std::system_error& e) {
    {
      MutexLock lock(st.mu);
      st.stopping = true;
    }
    for (auto& cv : st.work_cv) cv.notify_all();
    for (auto& w : workers_) w.join();
    workers_.clear();
    throw std::runtime_error("Cannot start the " + st.options.name +
                             "'s threads: " + std::string(e.what()) + ".");
  }
}

StreamServer::~StreamServer() { stop(); }

size_t StreamServer::stop() {
  if (stopped_ || !state_) return abandoned_;
  stopped_ = true;
  State& st = *state_;
  {
    MutexLock lock(st.mu);
    st.stopping = true;
  }
  st.wake();
  for (auto& cv : st.work_cv) cv.notify_all();
  if (loop_.joinable()) loop_.join();
  {
    MutexLock lock(st.mu);
    const auto deadline = std::chrono::steady_clock::now() + st.options.stop_grace;
    while (st.workers_running != 0 && st.workers_done_cv.wait_until(st.mu, deadline)) {
    }
    abandoned_ = st.workers_running;
    // Clients of idle connections see them close now; a connection still being answered stays
    // open for the worker, should it ever return.
    for (auto it = st.connections.begin(); it != st.connections.end();) {
      if (it->second->busy) {
        ++it;
        continue;
      }
      it = st.erase_locked(it);
    }
    ::close(st.listen_fd);
    st.listen_fd = -1;
  }
  if (abandoned_ == 0) {
    for (auto& w : workers_) w.join();
  } else {
    st.protocol->abandoning(abandoned_, st.options.stop_grace);
    for (auto& w : workers_) w.detach();
  }
  state_.reset();  // with no worker left behind, this closes every remaining descriptor
  return abandoned_;
}

size_t StreamServer::connections() const {
  if (!state_) return 0;
  MutexLock lock(state_->mu);
  return state_->connections.size();
}

void StreamServer::set_max_connections(size_t max_connections) {
  if (!state_) return;
  {
    MutexLock lock(state_->mu);
    state_->max_connections = max_connections;
  }
  state_->wake();
}

size_t StreamServer::unsent_bytes() const {
  if (!state_) return 0;
  MutexLock lock(state_->mu);
  return state_->unsent;
}

void StreamServer::wake_parked() {
  if (!state_) return;
  {
    MutexLock lock(state_->mu);
    ++state_->wake_generation;
    const auto now = State::Clock::now();
    for (auto& [fd, c] : state_->connections) {
      if (c->parked) c->parked_until = std::min(c->parked_until, now);
    }
  }
  state_->wake();
}

void StreamServer::State::wake() {
  const char b = 1;
  (void)!::write(wake_pipe[1], &b, 1);
}

bool StreamServer::State::wants_input_locked(StreamConnection& c) const {
  if (c.dead || c.closing || c.peer_closed || c.pending_output() >= kMaxPendingOutput) {
    return false;
  }
  return protocol->more_input_wanted(c);
}

bool StreamServer::State::may_answer_locked(const StreamConnection& c) const {
  const size_t own = c.pending_output();
  return own == 0 || (own < options.unsent_per_connection && unsent < options.unsent_total);
}

void StreamServer::State::queue_reply_locked(StreamConnection& c, StreamReply& reply) {
  const size_t before = c.output.pending();
  c.output.push(std::move(reply.bytes), std::move(reply.splices));
  unsent += c.output.pending() - before;
}

StreamServer::State::Connections::iterator StreamServer::State::erase_locked(
    Connections::iterator it) {
  StreamConnection& c = *it->second;
  unsent -= c.pending_output();
  c.output.clear();
  ::close(c.fd);
  return connections.erase(it);
}

void StreamServer::State::shed_excess_locked() {
  if (connections.size() <= max_connections) return;
  // Only connections still open count: one whose client has left, or that is closing, is on its
  // way out, and counting it would close a live client's connection in its place.
  std::vector<StreamConnection*> open;
  for (auto& [fd, c] : connections) {
    if (!c->dead && !c->closing && !c->peer_closed) open.push_back(c.get());
  }
  if (open.size() <= max_connections) return;
  size_t excess = open.size() - max_connections;
  std::sort(open.begin(), open.end(), [](const StreamConnection* a, const StreamConnection* b) {
    return a->last_active < b->last_active;
  });
  const Clock::time_point now = Clock::now();
  for (StreamConnection* c : open) {
    if (excess == 0) break;
    options.log->info(
        "Closing the {} connection from {}, active {} ms ago: over max.connections ({}).",
        options.name, c->peer,
        std::chrono::duration_cast<std::chrono::milliseconds>(now - c->last_active).count(),
        max_connections);
    // One being answered still gets that answer: it takes no further request and closes once
    // its reply is sent. Passing it over would close a more recently active one in its place.
    if (c->busy) {
      c->closing = true;
    } else {
      c->dead = true;
    }
    --excess;
  }
}

void StreamServer::State::event_loop() {
  block_sigpipe();
  std::vector<pollfd> fds;
  std::vector<std::shared_ptr<StreamConnection>> polled;
  for (;;) {
    fds.clear();
    polled.clear();
    fds.push_back({wake_pipe[0], POLLIN, 0});
    fds.push_back({listen_fd, POLLIN, 0});
    // Wake at least once a second to close idle connections, and when a parked request is due.
    Clock::time_point next_wake = Clock::now() + std::chrono::seconds(1);
    {
      MutexLock lock(mu);
      if (stopping) return;
      const Clock::time_point now = Clock::now();
      shed_excess_locked();
      dispatch_and_watch_locked(now, next_wake, fds, polled);
      if (options.over_limit == OverLimit::kWait && connections.size() >= max_connections) {
        // At the limit, new connections wait in the backlog: the listening socket is not polled.
        // The loop sees a client's close only where it reads from it, so once a second it looks
        // at every connection for one.
        if (now >= next_reap) {
          next_reap = now + std::chrono::seconds(1);
          reap_closed_locked();
        }
        if (connections.size() >= max_connections) fds[1].fd = -1;  // poll() skips it
      }
    }
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(next_wake - Clock::now());
    const int n = ::poll(fds.data(), fds.size(),
                         static_cast<int>(std::clamp<int64_t>(wait.count(), 0, 1000)));
    if (n < 0 && errno != EINTR) log_poll_failure();
    handle_events(fds, polled);
    if (options.idle.count() > 0) close_idle(Clock::now());
  }
}

void StreamServer::State::dispatch_and_watch_locked(
    Clock::time_point now, Clock::time_point& next_wake, std::vector<pollfd>& fds,
    std::vector<std::shared_ptr<StreamConnection>>& polled) {
  for (auto it = connections.begin(); it != connections.end();) {
    const std::shared_ptr<StreamConnection>& c = it->second;
    // A parked request is asked again when due; until then the connection's next requests
    // wait behind it. A connection whose client is slow to read its replies is muted.
    const bool due =
        c->parked ? c->parked_until <= now : may_answer_locked(*c) && protocol->request_ready(*c);
    if (!c->busy && !c->closing && !c->dead && due) {
      c->busy = true;
      const auto lane = static_cast<size_t>(lane_of_locked(*c));
      ready[lane].push_back(c);
      work_cv[lane].notify_one();
    }
    if (!c->busy && c->parked) next_wake = std::min(next_wake, c->parked_until);
    if (!c->busy && c->peer_closed && !c->dead && !c->parked && !protocol->request_ready(*c)) {
      c->closing = true;
    }
    if (!c->busy && (c->dead || (c->closing && c->pending_output() == 0))) {
      it = erase_locked(it);
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

void StreamServer::State::log_poll_failure() {
  std::string name = options.name;
  if (!name.empty()) name[0] = static_cast<char>(std::toupper(name[0]));
  options.log->error("{} poll failed: {}.", name, strerror(errno));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

void StreamServer::State::handle_events(
    const std::vector<pollfd>& fds, const std::vector<std::shared_ptr<StreamConnection>>& polled) {
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

void StreamServer::State::accept_all() {
  for (;;) {
    sockaddr_storage peer{};
    socklen_t len = sizeof peer;
    int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&peer), &len,
                       SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0 && (errno == EMFILE || errno == ENFILE) && spare_fd >= 0) {
      // Out of descriptors: the pending connection would keep the listening socket readable and
      // the loop spinning. Give up the spare descriptor for a moment to accept it and refuse it.
      ::close(spare_fd);
      spare_fd = -1;
      fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      protocol->refuse(fd, StreamRefusal::kOutOfDescriptors, 0);
      if (fd >= 0) ::close(fd);
      spare_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
      return;
    }
    if (fd < 0) return;  // none left, the client left before we took it, or a transient error
    std::string peer_text = protocol->accepted(fd, peer);
    MutexLock lock(mu);
    {
      size_t open = connections.size();
      if (open >= max_connections) open = reap_closed_locked();
      if (open >= max_connections) {
        protocol->refuse(fd, StreamRefusal::kTooManyConnections, connections.size());
        ::close(fd);
        continue;
      }
    }
    auto c = std::make_shared<StreamConnection>();
    c->fd = fd;
    c->peer = std::move(peer_text);
    c->last_active = Clock::now();
    connections.emplace(fd, std::move(c));
    if (options.over_limit == OverLimit::kWait && connections.size() >= max_connections) {
      return;  // the next ones wait in the backlog
    }
  }
}

// A client that closed its connection and opened a new one must not count twice: the loop may not
// have seen the close yet, and a worker may still be finishing the old connection's last answer.
// Peeks at every connection for end-of-file, closes the idle ones that ended, and returns how many
// are still open.
size_t StreamServer::State::reap_closed_locked() {
  size_t open = 0;
  for (auto it = connections.begin(); it != connections.end();) {
    const std::shared_ptr<StreamConnection>& c = it->second;
    char byte = 0;
    const bool ending = c->dead || c->closing || c->peer_closed;
    if (!ending && ::recv(c->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0) c->peer_closed = true;
    // A connection being answered is closed by the loop once its worker is done with it.
    if (!c->busy && (c->dead || ((c->closing || (c->peer_closed && !protocol->request_ready(*c))) &&
                                 c->pending_output() == 0))) {
      it = erase_locked(it);
      continue;
    }
    if (!c->dead && !c->closing && !c->peer_closed) ++open;
    ++it;
  }
  return open;
}

void StreamServer::State::read_from(const std::shared_ptr<StreamConnection>& c) {
  char chunk[64 * 1024];
  MutexLock lock(mu);
  while (wants_input_locked(*c)) {
    const ssize_t n = ::recv(c->fd, chunk, sizeof chunk, MSG_DONTWAIT);
    if (n > 0) {
      c->last_active = Clock::now();
      c->input.append(chunk, static_cast<size_t>(n));
      if (!protocol->request_ready(*c) && c->dead) return;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    // End of stream or a socket error: answer what was asked, then close.
    c->peer_closed = true;
    return;
  }
}

void StreamServer::State::write_to(const std::shared_ptr<StreamConnection>& c) {
  MutexLock lock(mu);
  const size_t before = c->pending_output();
  const SendQueue::Sent sent = c->output.send_to(c->fd);
  unsent -= before - c->pending_output();
  if (c->pending_output() < before) c->last_active = Clock::now();
  if (sent == SendQueue::Sent::kFileFailed) {
    options.log->warn("Closing the {} connection from {}: a reply cannot be finished: {}.",
                      options.name, c->peer, c->output.failure());
  }
  if (sent == SendQueue::Sent::kPeerGone || sent == SendQueue::Sent::kFileFailed) {
    c->dead = true;  // the peer is gone, or the reply under way cannot be finished
  }
}

void StreamServer::State::close_idle(Clock::time_point now) {
  MutexLock lock(mu);
  for (auto& [fd, c] : connections) {
    // Idle whatever it waits for: a request cut short, a client that reads no reply, a parked
    // request (Kafka's Selector closes such connections too). Closed at once: replies its client
    // has not read in all that time are not waited for.
    if (!c->busy && !c->dead && now - c->last_active > options.idle) {
      protocol->closing_idle(*c);
      c->dead = true;
    }
  }
}

StreamServer::Lane StreamServer::State::lane_of_locked(StreamConnection& c) const {
  if (options.slow_workers == 0 || c.parked) return Lane::kFast;
  return protocol->slow(c) ? Lane::kSlow : Lane::kFast;
}

void StreamServer::State::worker_loop(Lane lane) {
  const auto i = static_cast<size_t>(lane);
  for (;;) {
    std::shared_ptr<StreamConnection> c;
    {
      MutexLock lock(mu);
      while (!stopping && ready[i].empty()) work_cv[i].wait(mu);
      if (stopping) {
        --workers_running;
        workers_done_cv.notify_all();
        return;
      }
      c = std::move(ready[i].front());
      ready[i].pop_front();
    }
    serve(c, lane);
    wake();  // the loop hands the connection's next request, if another lane's, to that lane
  }
}

// Answers the connection's requests one after another, in order, until none is left. A worker that
// sends its replies itself answers all it finds; one whose replies are queued stops at shutdown,
// as the loop that would send them has ended.
void StreamServer::State::serve(const std::shared_ptr<StreamConnection>& c, Lane lane) {
  const bool queued = protocol->queues_replies();
  for (bool first = true;; first = false) {
    StreamRequest request;
    uint64_t generation = 0;
    {
      MutexLock lock(mu);
      bool taken = false;
      // A next request for the other lane goes back to the loop, which hands it to that lane.
      const bool other_lane = !first && lane_of_locked(*c) != lane;
      if (!(queued && stopping) && !c->dead && !c->closing && !other_lane) {
        if (c->parked) {
          request = std::move(*c->parked);
          c->parked.reset();
          taken = true;
        } else if (may_answer_locked(*c) && protocol->take_request(*c, request)) {
          // Muted otherwise: the loop hands the connection to a worker again once its client
          // has read enough.
          request.received = Clock::now();
          taken = true;
          give_back_if_large(c->input);
        }
      }
      if (!taken) {
        c->busy = false;
        return;
      }
      generation = wake_generation;
    }
    StreamReply reply = protocol->answer(*c, std::move(request));
    // Taken before the reply leaves: a stamp after it could postdate what its client does next
    // on another connection, and make this one look the more recently active.
    const Clock::time_point answered = Clock::now();
    if (reply.retry) {
      MutexLock lock(mu);
      c->parked = std::move(reply.retry);
      // A wake_parked() while it was being answered may have come too late for this answer.
      c->parked_until = generation == wake_generation ? reply.retry_at : Clock::now();
      c->busy = false;
      c->last_active = std::max(c->last_active, answered);
      return;
    }
    bool sent = true;
    if (!queued && !reply.bytes.empty()) {
      try {
        sent = protocol->send_now(c->fd, joined(reply.bytes, reply.splices));
      } catch (const std::exception& e) {
        options.log->warn("Closing the {} connection from {}: a reply cannot be finished: {}.",
                          options.name, c->peer, e.what());
        sent = false;
      }
    }
    {
      MutexLock lock(mu);
      c->last_active = std::max(c->last_active, answered);
      if (queued) queue_reply_locked(*c, reply);
      if (reply.close || !sent) {
        c->closing = true;
        if (reply.close) c->input.clear();
        c->busy = false;
        return;
      }
    }
    if (queued) wake();  // the loop may start sending this reply while the next is worked out
  }
}

}  // namespace lds
