// listener.cpp: the Kafka listener's socket and framing; the event loop and workers are a
// StreamServer's.
#include "kafka/server/listener.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "kafka/protocol/api_keys.h"
#include "kafka/protocol/framing.h"
#include "util/log_limiter.h"
#include "util/logging.h"

namespace lds::kafka {
namespace {

std::shared_ptr<spdlog::logger> log() {
  static auto l = logger("lds.kafka");
  return l;
}

// Bytes read ahead of the frame being handled beyond which the loop stops reading from a client
// until it catches up (the StreamServer also stops while 4 MiB of replies wait for it).
constexpr size_t kReadAhead = 1 << 20;

// The StreamServer's idle limit for connections.max.idle.ms: a negative value closes no idle
// connection (Kafka's Selector then keeps no idle expiry), 0 any connection idle at all.
std::chrono::milliseconds idle_limit(int64_t idle_ms) {
  if (idle_ms < 0) return std::chrono::milliseconds(0);
  return std::chrono::milliseconds(std::max<int64_t>(idle_ms, 1));
}

// The StreamServer's connection limit for max.connections, which has no "no limit" value: 0
// accepts none, as Kafka's acceptor then waits for ever.
size_t connection_limit(int32_t max_connections) {
  return static_cast<size_t>(std::max(max_connections, 0));
}

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

// The host part of an address_text(): "127.0.0.1", "[::1]".
std::string host_of(const std::string& address) {
  const size_t colon = address.rfind(':');
  return colon == std::string::npos ? address : address.substr(0, colon);
}

// Kafka's framing: each request and reply a 4-byte big-endian size and that many bytes. Replies
// are queued, in request order, for the event loop to send.
class KafkaProtocol final : public StreamProtocol {
 public:
  KafkaProtocol(std::shared_ptr<KafkaListener::Handler> handler, int32_t max_frame_bytes,
                int64_t idle_ms)
      : handler_(std::move(handler)), max_frame_bytes_(max_frame_bytes), idle_ms_(idle_ms) {}

  bool more_input_wanted(const StreamConnection& c) const override {
    if (c.input.size() < kReadAhead) return true;
    // Past the read-ahead only to complete the first frame.
    return cut_frame(c.input, max_frame_bytes_).state == FrameCut::kIncomplete;
  }

  // Whether the first buffered frame is complete; marks the connection dead when its size is out
  // of bounds.
  bool request_ready(StreamConnection& c) override {
    if (c.dead) return false;
    const FrameCut cut = cut_frame(c.input, max_frame_bytes_);
    if (cut.state == FrameCut::kInvalid) {
      // Kafka's words for it (NetworkReceive), then ours.
      log_closing(c.peer, "Invalid receive (size = " + std::to_string(cut.size) + " larger than " +
                              std::to_string(max_frame_bytes_) + "); socket.request.max.bytes is " +
                              std::to_string(max_frame_bytes_));
      c.dead = true;
      c.input.clear();
      return false;
    }
    return cut.state == FrameCut::kComplete;
  }

  // The first frame's request header starts with its API key.
  bool slow(const StreamConnection& c) const override {
    if (c.input.size() < 6) return false;
    const auto key = static_cast<int16_t>((static_cast<uint8_t>(c.input[4]) << 8) |
                                          static_cast<uint8_t>(c.input[5]));
    switch (static_cast<ApiKey>(key)) {
      case ApiKey::kCreateTopics:
      case ApiKey::kDeleteTopics:
      case ApiKey::kCreatePartitions:
      case ApiKey::kAlterReplicaLogDirs:
      case ApiKey::kAlterConfigs:
      case ApiKey::kIncrementalAlterConfigs:
        return true;
      default:
        return false;
    }
  }

  bool take_request(StreamConnection& c, StreamRequest& request) override {
    if (!request_ready(c)) return false;
    const auto size = static_cast<size_t>(cut_frame(c.input, max_frame_bytes_).size);
    request.bytes = c.input.substr(4, size);
    c.input.erase(0, 4 + size);
    return true;
  }

  StreamReply answer(const StreamConnection& c, StreamRequest request) override {
    Reply reply;
    try {
      reply = (*handler_)(request.bytes, request.received);
    } catch (const std::exception& e) {
      reply = Reply{};
      reply.close_reason = std::string("the request failed: ") + e.what();
    }
    StreamReply out;
    if (reply.retry_at) {
      out.retry_at = *reply.retry_at;
      out.retry = std::move(request);
      return out;
    }
    if (!reply.frame.empty()) {
      uint64_t size = reply.frame.size();
      for (const FileSplice& s : reply.splices) size += s.slice.length;
      for (int shift = 24; shift >= 0; shift -= 8) {
        out.bytes.push_back(static_cast<char>((size >> shift) & 0xFF));
      }
      out.bytes += reply.frame;
      out.splices = std::move(reply.splices);
      for (FileSplice& s : out.splices) s.at += 4;
    }
    if (!reply.close_reason.empty()) {
      log_closing(c.peer, reply.close_reason);
      out.close = true;
    }
    return out;
  }

  bool queues_replies() const override { return true; }

  std::string accepted(int fd, const sockaddr_storage& peer) override {
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return address_text(peer);
  }

  void refuse(int /*fd*/, StreamRefusal why, size_t /*open*/) override {
    if (why == StreamRefusal::kOutOfDescriptors) {
      const std::optional<uint64_t> left_out = refusal_lines_.admit("descriptors");
      if (!left_out) return;
      log()->warn(
          "Refused a Kafka connection: out of file descriptors{}. Produce and Fetch keep working "
          "(descriptors are kept back for segment files); raise the open-file limit (ulimit -n) "
          "or lower max.connections.",
          *left_out == 0 ? ""
                         : " (" + std::to_string(*left_out) +
                               " more refused since the last such line; one line a minute)");
    }
  }

  void closing_idle(const StreamConnection& c) override {
    // Kafka's Selector says this at trace level only; an operator sees it at debug.
    log()->debug(
        "Closing the Kafka connection from {}: idle for more than {} ms "
        "(connections.max.idle.ms).",
        c.peer, idle_ms_);
  }

  void abandoning(size_t handlers, std::chrono::seconds grace) override {
    log()->error(
        "{} Kafka request handler(s) did not return within {} s of shutdown; leaving "
        "them behind.",
        handlers, grace.count());
  }

 private:
  // "Closing the Kafka connection from <peer>: <reason>.", at most once a minute for one client
  // host and reason: a client that reconnects and asks again (kafka-python's loop for the consumer
  // group APIs does, several times a second) writes one line a minute, with the count left out.
  void log_closing(const std::string& peer, const std::string& reason) {
    const std::string host = host_of(peer);
    const std::optional<uint64_t> left_out = closing_lines_.admit(host + " " + reason);
    if (!left_out) return;
    if (*left_out == 0) {
      log()->warn("Closing the Kafka connection from {}: {}.", peer, reason);
      return;
    }
    log()->warn(
        "Closing the Kafka connection from {}: {} ({} more connections from {} closed for this "
        "since the last such line; one line a minute per client host and reason).",
        peer, reason, *left_out, host);
  }

  const std::shared_ptr<KafkaListener::Handler> handler_;
  const int32_t max_frame_bytes_;
  const int64_t idle_ms_;
  LogLimiter closing_lines_{std::chrono::minutes(1)};
  LogLimiter refusal_lines_{std::chrono::minutes(1)};
};

}  // namespace

KafkaListener::KafkaListener(Options options)
    : options_(std::move(options)), handler_(std::make_shared<Handler>()) {
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
  int listen_fd = -1;
  std::string failure;
  for (addrinfo* a = found; a != nullptr && listen_fd < 0; a = a->ai_next) {
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
    listen_fd = fd;
  }
  ::freeaddrinfo(found);
  if (listen_fd < 0) throw std::runtime_error("Cannot listen on " + where + ": " + failure + ".");
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  ::getsockname(listen_fd, reinterpret_cast<sockaddr*>(&bound), &len);
  bound_address_ = address_text(bound);
  std::tie(bound_host_, bound_port_) = host_and_port(bound);
  server_ = std::make_unique<StreamServer>(
      listen_fd,
      std::make_shared<KafkaProtocol>(handler_, options_.max_frame_bytes, options_.idle_ms),
      StreamServer::Options{.name = "Kafka listener",
                            .log = log(),
                            .workers = std::max<size_t>(options_.workers, 1),
                            .slow_workers = options_.slow_workers,
                            .max_connections = connection_limit(options_.max_connections),
                            .over_limit = StreamServer::OverLimit::kWait,
                            .idle = idle_limit(options_.idle_ms),
                            .stop_grace = kStopGrace,
                            .unsent_per_connection = options_.unsent_per_connection,
                            .unsent_total = options_.unsent_total});
}

void KafkaListener::start(Handler handler) {
  *handler_ = std::move(handler);
  server_->start();
  started_ = true;
  log()->info("Kafka listener on {}", bound_address_);
}

KafkaListener::~KafkaListener() { stop(); }

size_t KafkaListener::stop() { return server_->stop(); }

size_t KafkaListener::connections() const { return server_->connections(); }

void KafkaListener::set_max_connections(int32_t max_connections) {
  if (max_connections == options_.max_connections) return;
  options_.max_connections = max_connections;
  server_->set_max_connections(connection_limit(max_connections));
}

size_t KafkaListener::unsent_bytes() const { return server_->unsent_bytes(); }

void KafkaListener::wake_waiting() { server_->wake_parked(); }

}  // namespace lds::kafka
