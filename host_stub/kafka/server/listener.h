// listener.h: the Kafka protocol's transport: size-prefixed frames over TCP.
//
// One event-loop thread accepts connections, reads frames and writes replies without ever
// blocking on a client; a fixed pool of worker threads runs the handler. Each connection has at
// most one worker at a time, which answers its frames in order, so replies go back in request
// order however far a client pipelines. A client that is slow to send or to read holds no thread:
// the loop stops reading from it while its replies wait, and serves everyone else meanwhile. A
// Fetch waiting for data holds no thread either: the handler's Reply::retry_at parks it (see
// StreamServer), and wake_waiting() asks the parked ones again.
//
// Memory: a connection is muted, as Kafka mutes one while its response is unsent, once
// Options::unsent_per_connection bytes of its replies wait for its client to read them; its
// pipelined requests then wait, 1 MiB of them read ahead at most. Once Options::unsent_total bytes
// wait over all connections, every connection with anything unsent is muted. So a client that
// pipelines Fetches and never reads holds one reply and that budget, not one reply per request.
//
// Connections (Kafka's SocketServerConfigs): at most max.connections are open; a client beyond it
// waits, unaccepted, until one closes, as Kafka's acceptor blocks. A connection with no byte read
// or written for connections.max.idle.ms is closed, however it came to be idle: a frame cut
// short, replies its client never reads, nothing at all.
//
// Zero copy: a reply may carry slices of segment files (Reply::splices); its headers are sent
// from memory and the slices by sendfile, both counted as unsent bytes. A slice whose file turns
// out shorter, or cannot be read, closes that connection with a warning naming the file.
//
// A frame above the size limit, or a handler's request to close (an unknown API, a malformed
// request), closes that connection only, with a log line naming the peer and the reason.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "kafka/server/request_handler.h"
#include "net/stream_server.h"

namespace lds::kafka {

class KafkaListener {
 public:
  // `received`: when the frame arrived (kept when a parked request is asked again).
  using Handler =
      std::function<Reply(std::string_view frame, std::chrono::steady_clock::time_point received)>;

  struct Options {
    std::string host;                     // a host name or an IPv4/IPv6 address
    int32_t port = 0;                     // 0: any free port
    int32_t max_frame_bytes = 104857600;  // socket.request.max.bytes
    size_t workers = 4;
    // Workers of their own for what may take long (creations, deletions, moves, config changes,
    // which may swap the strategy), so that Produce, Fetch and Metadata always find a worker.
    size_t slow_workers = 2;
    int32_t max_connections = 2147483647;  // max.connections: 0 accepts none
    int64_t idle_ms = 600000;              // connections.max.idle.ms; negative: never closed
    size_t unsent_per_connection = size_t{256} << 10;
    size_t unsent_total = size_t{64} << 20;
  };

  // Binds and listens; nothing is served until start(). Throws std::runtime_error naming the
  // address when it cannot be resolved or bound.
  explicit KafkaListener(Options options);
  // stop(), if it has not run yet.
  ~KafkaListener();
  KafkaListener(const KafkaListener&) = delete;
  KafkaListener& operator=(const KafkaListener&) = delete;

  // Starts the event loop and the workers. Throws std::runtime_error if a thread cannot start.
  void start(Handler handler);

  // The bound address: the numeric address and the port actually bound ("127.0.0.1:40123").
  const std::string& bound_address() const { return bound_address_; }
  // Its parts: the numeric host (no brackets) and the port; what Metadata advertises.
  const std::string& bound_host() const { return bound_host_; }
  int32_t bound_port() const { return bound_port_; }

  // How long stop() waits for requests still in the handler.
  static constexpr std::chrono::seconds kStopGrace{5};

  // Stops accepting and reading, waits up to kStopGrace for requests in the handler, and closes
  // every connection. Returns how many workers were still in the handler at the deadline: they
  // are abandoned, and the caller must keep what the handler uses alive, or end the process.
  size_t stop();

  // Connections open now.
  size_t connections() const;

  // max.connections changed (a dynamic key). Lowered below the connections open, the least
  // recently active ones are closed, as Kafka does.
  void set_max_connections(int32_t max_connections);

  // Bytes of replies waiting for their clients to read them.
  size_t unsent_bytes() const;

  // Data has arrived: every parked request (a waiting Fetch) is asked again now.
  void wake_waiting();

 private:
  Options options_;
  std::string bound_address_;
  std::string bound_host_;
  int32_t bound_port_ = 0;
  std::shared_ptr<Handler> handler_;  // set by start(); shared with the server's workers
  std::unique_ptr<StreamServer> server_;
  bool started_ = false;
};

}  // namespace lds::kafka
