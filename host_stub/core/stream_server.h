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
// A request may never return (a handler stuck inside a strategy plugin), so stopping waits for the
// workers only so long and then leaves the busy ones behind. The state they use is shared with
// them and outlives the server; what the protocol's handler uses is the caller's to keep.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/stream_protocol.h"

namespace spdlog {
class logger;
}

namespace lds {

class StreamServer {
 public:
  struct Options {
    std::string name;  // "admin server": in "Cannot start the admin server's threads"
    std::shared_ptr<spdlog::logger> log;
    size_t workers = 4;                 // at least one
    size_t max_connections = 0;         // 0: no limit
    std::chrono::milliseconds idle{0};  // 0: idle connections stay open
    std::chrono::seconds stop_grace{5};
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

  // Asks every parked request (StreamReply::retry) again now: what it waits for may be there.
  void wake_parked();

 private:
  struct State;  // shared with the threads

  std::shared_ptr<State> state_;
  std::vector<std::thread> workers_;
  std::thread loop_;
  bool stopped_ = false;
  size_t abandoned_ = 0;
};

}  // namespace lds
