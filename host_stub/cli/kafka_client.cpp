// kafka_client.cpp: a blocking Kafka protocol client over TCP, with the request and response
// headers of kafka/headers.h and Kafka's 4-byte size framing.
#include "cli/kafka_client.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "core/errors.h"
#include "core/wire.h"
#include "kafka/headers.h"

namespace lds::cli {

namespace {

// What a reply may weigh: far more than any config or log-dir listing of one broker.
constexpr uint32_t kMaxReplyBytes = 64u << 20;

}  // namespace

KafkaClient::KafkaClient(const std::string& bootstrap) : bootstrap_(bootstrap) {
  const size_t colon = bootstrap.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == bootstrap.size()) {
    throw std::runtime_error("--bootstrap-server " + bootstrap + " is not HOST:PORT.");
  }
  std::string host = bootstrap.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);  // [::1]:9092
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), bootstrap.substr(colon + 1).c_str(), &hints, &found) != 0) {
    throw std::runtime_error("--bootstrap-server " + bootstrap + ": the host cannot be resolved.");
  }
  int last_errno = 0;
  for (addrinfo* a = found; a != nullptr && fd_ < 0; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      fd_ = fd;
    } else {
      last_errno = errno;
      ::close(fd);
    }
  }
  ::freeaddrinfo(found);
  if (fd_ < 0) {
    throw std::runtime_error("no Kafka listener answers at " + bootstrap + ": " +
                             std::strerror(last_errno) + ".");
  }
}

KafkaClient::~KafkaClient() {
  if (fd_ >= 0) ::close(fd_);
}

std::string KafkaClient::call(int16_t api_key, int16_t api_version, const std::string& body) {
  const int32_t correlation_id = next_correlation_id_++;
  kafka::Writer request;
  kafka::write_request_header(request, {api_key, api_version, correlation_id, "lds-host"}, 1);
  request.raw(body);
  kafka::Writer framed;
  framed.int32(static_cast<int32_t>(request.bytes().size()));
  framed.raw(request.bytes());
  const std::string& out = framed.bytes();
  for (size_t sent = 0; sent < out.size();) {
    const ssize_t n = ::send(fd_, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      throw std::runtime_error("the connection to " + bootstrap_ + " failed while sending.");
    }
    sent += static_cast<size_t>(n);
  }
  auto receive = [this](size_t size) {
    std::string in(size, '\0');
    for (size_t got = 0; got < size;) {
      const ssize_t n = ::recv(fd_, in.data() + got, size - got, 0);
      if (n <= 0) {
        if (n < 0 && errno == EINTR) continue;
        throw std::runtime_error("the broker at " + bootstrap_ + " closed the connection.");
      }
      got += static_cast<size_t>(n);
    }
    return in;
  };
  const std::string prefix = receive(4);
  kafka::Reader size_reader(prefix);
  const uint32_t size = size_reader.uint32();
  if (size > kMaxReplyBytes) {
    throw std::runtime_error("the broker at " + bootstrap_ + " sent a reply of " +
                             std::to_string(size) + " bytes.");
  }
  const std::string reply = receive(size);
  kafka::Reader in(reply);
  if (kafka::read_response_header(in, 0) != correlation_id) {
    throw std::runtime_error("the broker at " + bootstrap_ + " answered another request.");
  }
  return reply.substr(in.position());
}

std::string kafka_error_name(int16_t code) {
  for (int i = 0; i <= static_cast<int>(ErrorCode::kLast); ++i) {
    const auto e = static_cast<ErrorCode>(i);
    if (error_number(e) == code) return error_name(e);
  }
  return "error code " + std::to_string(code);
}

}  // namespace lds::cli
