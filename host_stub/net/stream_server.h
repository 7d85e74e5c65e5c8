// stream_server.h: a stream-socket server: one event-loop thread accepts connections, reads
// requests and writes queued replies without ever blocking on a client; a fixed pool of worker
// threads answers them through a StreamProtocol. Each connection has at most one worker at a time,
// which answers its requests in order, so replies go back in request order.
//
// A request that cannot be answered yet (a Kafka fetch waiting for data) is parked: its worker
// returns to the pool, the connection takes no further request until the parked one is answered,
// and the loop hands it to a worker again when it is due or wake_parked() says something changed.
// So a waiting client holds no thread, and however many wait, everyone else is served.
//
// Requests that may take long (the protocol says which) can have a pool of their own, so that
// a burst of them leaves the quick ones their workers. A connection still has one worker at a
// time: its requests stay in order, each answered by its lane's pool.
//
// Queued replies are held in memory until the client reads them, so a client that pipelines
// requests and never reads must not have them all answered: a connection whose unsent replies
// reach a small budget is muted (its next requests wait, unread beyond the protocol's read-ahead)
// until its client has read them, as Kafka mutes a connection while its response is unsent. A
// budget for all connections together mutes every connection that has anything unsent once it
// is reached; a connection with nothing unsent is always served. So one connection holds at most
// its budget and one reply, and however many never read, everyone else is served.
//
// A request may never return (a handler stuck inside a strategy plugin), so stopping waits for the
// workers only so long and then leaves the busy ones behind. The state they use is shared with
// them and outlives the server; what the protocol's handler uses is the caller's to keep.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "net/stream_protocol.h"

namespace spdlog {
class logger;
}

namespace lds {

class StreamServer {
 public:
  static constexpr size_t kNoLimit = SIZE_MAX;

  // What becomes of a connection beyond max_connections.
  enum class OverLimit {
    kRefuse,  // accepted, handed to StreamProtocol::refuse, closed
    // Left unaccepted, in the kernel's listen backlog, until a connection closes: Kafka's acceptor
    // blocks so (its max.connections).
    kWait,
  };

  struct Options {
    std::string name;  // "admin server": in "Cannot start the admin server's threads"
    std::shared_ptr<spdlog::logger> log;
    size_t workers = 4;  // at least one
    // A second pool, for the requests StreamProtocol::slow() names (a creation of thousands of
    // partitions), so that they never hold every worker while quick requests wait. 0: the one
    // pool answers everything.
    size_t slow_workers = 0;
    // Connections open at once; 0 accepts none.
    size_t max_connections = kNoLimit;
    OverLimit over_limit = OverLimit::kRefuse;
    // 0: idle connections stay open. Otherwise a connection with no byte read or written and no
    // request answered for longer is closed, unsent replies and all (Kafka's
    // connections.max.idle.ms); one a worker is answering is not idle.
    std::chrono::milliseconds idle{0};
    std::chrono::seconds stop_grace{5};
    // Queued replies (StreamProtocol::queues_replies) one connection may leave unsent and still
    // have its next request answered.
    size_t unsent_per_connection = size_t{256} << 10;
    // Unsent replies of all connections together past which only connections with nothing unsent
    // have their next request answered.
    size_t unsent_total = size_t{64} << 20;
  };

  // Takes `listen_fd` (bound, listening, non-blocking), closing it even if this throws. Nothing is
  // served until start(). Throws std::runtime_error when the wake-up pipe cannot be made.
  StreamServer(int listen_fd, std::shared_ptr<StreamProtocol> protocol, Options options);
  // stop(), if it has not run yet.
  ~StreamServer();
  StreamServer(const StreamServer&) = delete;
  StreamServer& operator=(const StreamServer&) = delete;

  // Starts the event loop and the workers. Throws std::runtime_error if a thread cannot start.
  void start();

  // Stops accepting and reading, closes the idle connections and the listening socket, and waits
  // up to the stop grace for requests being answered. Returns how many workers were still
  // answering at the deadline: they are abandoned, not joined, and keep their connections open
  // until they return. Later calls do nothing and return the same count.
  size_t stop();

  // Connections open now.
  size_t connections() const;

  // Changes max_connections (kNoLimit: none). Lowered below the connections open, the least
  // recently active ones not being answered are closed until it holds.
  void set_max_connections(size_t max_connections);

  // Bytes of queued replies not yet sent, over all connections.
  size_t unsent_bytes() const;

  // Asks every parked request (StreamReply::retry) again now: what it waits for may be there.
  void wake_parked();

 private:
  enum class Lane : size_t { kFast = 0, kSlow = 1 };  // which pool answers a request
  struct State;                                       // shared with the threads

  std::shared_ptr<State> state_;
  std::vector<std::thread> workers_;
  std::thread loop_;
  bool stopped_ = false;
  size_t abandoned_ = 0;
};

}  // namespace lds
