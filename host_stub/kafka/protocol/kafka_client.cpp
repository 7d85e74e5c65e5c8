// kafka_client.cpp: a blocking Kafka protocol client over TCP, with the request and response
// headers of kafka/headers.h, Kafka's 4-byte size framing, and socket timeouts.
#include "kafka/protocol/kafka_client.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "kafka/protocol/api_versions.h"
#include "kafka/protocol/headers.h"
#include "model/wire.h"
#include "util/errors.h"

namespace lds::kafka {

namespace {

// What a reply may weigh: far more than any config or log-dir listing of one broker.
constexpr uint32_t kMaxReplyBytes = 64u << 20;

// The ApiVersions version asked first (flexible, as librdkafka and Kafka's clients ask), and the
// one asked again when a broker refuses it.
constexpr int16_t kApiVersionsFirst = 3;

std::pair<std::string, std::string> host_and_port(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size()) {
    throw std::runtime_error("--bootstrap-server " + address + " is not HOST:PORT.");
  }
  std::string host = address.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);  // [::1]:9092
  }
  return {host, address.substr(colon + 1)};
}

void set_timeouts(int fd, std::chrono::milliseconds timeout) {
  const auto ms = std::max<int64_t>(1, timeout.count());
  timeval tv{};
  tv.tv_sec = ms / 1000;
  tv.tv_usec = static_cast<suseconds_t>((ms % 1000) * 1000);
  // SO_SNDTIMEO bounds connect() too.
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

}  // namespace

KafkaClient::KafkaClient(const std::string& address, ClientOptions options)
    : address_(address), options_(std::move(options)) {
  const auto [host, port] = host_and_port(address);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0) {
    throw std::runtime_error("--bootstrap-server " + address + ": the host cannot be resolved.");
  }
  int last_errno = 0;
  for (addrinfo* a = found; a != nullptr && fd_ < 0; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    set_timeouts(fd, options_.request_timeout);
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      fd_ = fd;
    } else {
      last_errno = errno;
      ::close(fd);
    }
  }
  ::freeaddrinfo(found);
  if (fd_ < 0) {
    throw std::runtime_error("no Kafka listener answers at " + address + ": " +
                             std::strerror(last_errno) + ".");
  }
}

KafkaClient::~KafkaClient() {
  if (fd_ >= 0) ::close(fd_);
}

void KafkaClient::send_all(const std::string& out) {
  for (size_t sent = 0; sent < out.size();) {
    const ssize_t n = ::send(fd_, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        throw std::runtime_error("the broker at " + address_ + " took no request bytes for " +
                                 std::to_string(options_.request_timeout.count()) + " ms.");
      }
      throw std::runtime_error("the connection to " + address_ + " failed while sending.");
    }
    sent += static_cast<size_t>(n);
  }
}

std::string KafkaClient::receive(size_t size) {
  std::string in(size, '\0');
  for (size_t got = 0; got < size;) {
    const ssize_t n = ::recv(fd_, in.data() + got, size - got, 0);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        throw std::runtime_error("the broker at " + address_ + " did not answer within " +
                                 std::to_string(options_.request_timeout.count()) + " ms.");
      }
      throw std::runtime_error("the broker at " + address_ + " closed the connection.");
    }
    got += static_cast<size_t>(n);
  }
  return in;
}

std::string KafkaClient::call(int16_t api_key, int16_t api_version, const std::string& body) {
  if (fd_ < 0) throw std::runtime_error("the connection to " + address_ + " was lost earlier.");
  const std::optional<ApiRange> api = find_api(api_key);
  if (!api) throw std::logic_error("no codec for API key " + std::to_string(api_key));
  const int32_t correlation_id = next_correlation_id_++;
  Writer request;
  write_request_header(request, {api_key, api_version, correlation_id, options_.client_id},
                       request_header_version(*api, api_version));
  request.raw(body);
  Writer framed;
  framed.int32(static_cast<int32_t>(request.bytes().size()));
  framed.raw(request.bytes());
  try {
    send_all(framed.bytes());
    const std::string prefix = receive(4);
    Reader size_reader(prefix);
    const uint32_t size = size_reader.uint32();
    if (size > kMaxReplyBytes) {
      throw std::runtime_error("the broker at " + address_ + " sent a reply of " +
                               std::to_string(size) + " bytes.");
    }
    const std::string reply = receive(size);
    Reader in(reply);
    if (read_response_header(in, response_header_version(*api, api_version)) != correlation_id) {
      throw std::runtime_error("the broker at " + address_ + " answered another request.");
    }
    return reply.substr(in.position());
  } catch (...) {
    // A reply half read (or never read) leaves the stream out of step: nothing more on it.
    ::close(fd_);
    fd_ = -1;
    throw;
  }
}

int16_t KafkaClient::version(ApiKey key, int16_t min_version, int16_t max_version) {
  if (!versions_known_) {
    auto ask = [this](int16_t v) {
      Writer out;
      write_api_versions_request(out, {"lds-host", "1"}, v);
      const std::string body = call(static_cast<int16_t>(ApiKey::kApiVersions), v, out.bytes());
      Reader in(body);
      // A broker that refuses the version asked answers in version 0, with its own range.
      const int16_t error_code = Reader(body).int16();
      return read_api_versions_response(in, error_code == 0 ? v : int16_t{0});
    };
    ApiVersionsResponse r = ask(kApiVersionsFirst);
    if (r.error_code != 0) r = ask(0);
    if (r.error_code != 0) {
      throw std::runtime_error("the broker at " + address_ +
                               " refused ApiVersions: " + kafka_error_name(r.error_code) + ".");
    }
    for (const auto& a : r.api_keys) broker_versions_[a.api_key] = {a.min_version, a.max_version};
    versions_known_ = true;
  }
  const std::optional<ApiRange> ours = find_api(static_cast<int16_t>(key));
  const auto it = broker_versions_.find(static_cast<int16_t>(key));
  const int16_t low = std::max(min_version, ours ? ours->min_version : min_version);
  const int16_t high = std::min(max_version, ours ? ours->max_version : max_version);
  if (it == broker_versions_.end() ||
      std::max(low, it->second.first) > std::min(high, it->second.second)) {
    const std::string theirs = it == broker_versions_.end()
                                   ? "does not serve it"
                                   : "serves versions " + std::to_string(it->second.first) +
                                         " to " + std::to_string(it->second.second);
    throw std::runtime_error("the broker at " + address_ + " " + theirs + " of API key " +
                             std::to_string(static_cast<int>(key)) + "; lds-host needs " +
                             std::to_string(low) + " to " + std::to_string(high) + ".");
  }
  return std::min(high, it->second.second);
}

std::vector<std::string> bootstrap_addresses(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    std::string entry = list.substr(start, comma - start);
    entry.erase(0, entry.find_first_not_of(' '));
    entry.erase(entry.find_last_not_of(' ') + 1);
    if (!entry.empty()) {
      host_and_port(entry);  // throws for one that is not HOST:PORT
      out.push_back(entry);
    }
    start = comma + 1;
  }
  if (out.empty()) throw std::runtime_error("--bootstrap-server names no HOST:PORT.");
  return out;
}

std::string kafka_error_name(int16_t code) {
  for (int i = 0; i <= static_cast<int>(ErrorCode::kLast); ++i) {
    const auto e = static_cast<ErrorCode>(i);
    if (error_number(e) == code) return error_name(e);
  }
  return "error code " + std::to_string(code);
}

}  // namespace lds::kafka
