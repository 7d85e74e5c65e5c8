// stream_protocol.h: what a StreamServer asks of the protocol it serves: how requests are cut out
// of a connection's input, how they are answered, and how replies reach the client.
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "net/send_queue.h"

namespace lds {

// A request cut out of the input; `too_large` when it exceeded the framing's limit and only its
// refusal is to be answered.
struct StreamRequest {
  std::string bytes;
  bool too_large = false;
  // When the server took it from the input; a request asked again (StreamReply::retry) keeps it.
  std::chrono::steady_clock::time_point received{};
};

struct StreamReply {
  std::string bytes;  // what to send, framed; may be empty
  // Bytes still in files, sent from there (sendfile) in their places within `bytes`.
  std::vector<FileSplice> splices;
  bool close = false;  // close the connection after this reply, taking no further request
  // No answer yet (a fetch waiting for data): the server keeps this request, takes no other from
  // the connection meanwhile (replies keep their order), and asks again with it at `retry_at`, or
  // sooner after StreamServer::wake_parked(). No worker is held while it waits.
  std::optional<StreamRequest> retry;
  std::chrono::steady_clock::time_point retry_at{};
};

// One client connection. The server's lock guards every field but `fd` and `peer`, which never
// change while the connection is open.
struct StreamConnection {
  int fd = -1;
  std::string peer;          // the client's address as the protocol wrote it; may be empty
  std::string input;         // bytes read, not yet taken as requests
  SendQueue output;          // queued replies not yet sent
  bool discarding = false;   // the framing's own: inside a request already too large to keep
  bool busy = false;         // a worker is answering its requests
  bool peer_closed = false;  // end of stream: answer the complete requests, send, then close
  bool closing = false;      // take no more requests; send what is queued, then close
  bool dead = false;         // close as soon as no worker holds it
  // When its client last sent bytes, a reply's bytes last left, or a request was last answered:
  // what the idle timer counts from, and what max.connections sheds the oldest of.
  std::chrono::steady_clock::time_point last_active;
  // A request whose answer waits (StreamReply::retry), and when to ask again at the latest.
  std::optional<StreamRequest> parked;
  std::chrono::steady_clock::time_point parked_until{};

  size_t pending_output() const { return output.pending(); }
};

// Why an accepted connection is turned away at once.
enum class StreamRefusal { kOutOfDescriptors, kTooManyConnections };

class StreamProtocol {
 public:
  virtual ~StreamProtocol() = default;

  // Called with the server's lock held. Whether the loop should read more of `c` beyond its
  // current input (the server already stops reading a closing or dead connection, and one whose
  // queued replies the client is slow to take).
  virtual bool more_input_wanted(const StreamConnection& c) const = 0;
  // Whether `c.input` holds a request for a worker. May mark `c` dead when the input can never
  // make a valid request.
  virtual bool request_ready(StreamConnection& c) = 0;
  // Called with the server's lock held, once request_ready(c): whether the next request is one
  // that may take long, for the server's slow pool (StreamServer::Options::slow_workers).
  virtual bool slow(const StreamConnection& /*c*/) const { return false; }
  // Cuts the next request out of `c.input`; false when there is none (yet).
  virtual bool take_request(StreamConnection& c, StreamRequest& request) = 0;

  // Called on a worker without the lock; only `c.fd` and `c.peer` may be read.
  virtual StreamReply answer(const StreamConnection& c, StreamRequest request) = 0;

  // Queued replies are sent by the event loop as the client reads them, so a slow reader holds
  // no worker. Otherwise the worker sends each reply itself with send_now() before the next
  // request, its splices read into it; a false return closes the connection.
  virtual bool queues_replies() const = 0;
  virtual bool send_now(int /*fd*/, std::string_view /*reply*/) { return false; }

  // A new connection, before it is served; returns the peer's text for messages.
  virtual std::string accepted(int fd, const sockaddr_storage& peer) = 0;
  // A connection turned away; `fd` is -1 when even the spare descriptor could not take it, and
  // the server closes it afterwards. `open` counts the connections open.
  virtual void refuse(int fd, StreamRefusal why, size_t open) = 0;
  // A connection about to be closed for being idle longer than the server's limit.
  virtual void closing_idle(const StreamConnection& /*c*/) {}
  // stop() is leaving `handlers` workers behind, still answering after `grace`.
  virtual void abandoning(size_t handlers, std::chrono::seconds grace) = 0;
};

}  // namespace lds
