// frame_client.h: one TCP connection to a loopback server speaking 4-byte big-endian
// length-prefixed frames (the Kafka protocol's framing), with timeouts on every read. For the
// Kafka listener's suites.
#pragma once

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace lds::test {

class FrameClient {
 public:
  explicit FrameClient(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~FrameClient() { ::close(fd_); }
  FrameClient(const FrameClient&) = delete;
  FrameClient& operator=(const FrameClient&) = delete;

  bool connected() const { return connected_; }

  // `payload` with its 4-byte size in front.
  static std::string frame(const std::string& payload) {
    const auto n = static_cast<uint32_t>(payload.size());
    std::string out{static_cast<char>(n >> 24), static_cast<char>(n >> 16),
                    static_cast<char>(n >> 8), static_cast<char>(n)};
    return out + payload;
  }

  // Sends what the socket takes without blocking; returns the bytes sent.
  size_t send_some(const std::string& bytes) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    return n > 0 ? static_cast<size_t>(n) : 0;
  }
  bool send_all(const std::string& bytes) {
    size_t sent = 0;
    while (sent < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }
  void shut_write() { ::shutdown(fd_, SHUT_WR); }

  // The next frame's payload (without its size), or nullopt when the connection closed or nothing
  // came within `timeout`.
  std::optional<std::string> read_frame(
      std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    std::string size;
    if (!read_exactly(4, timeout, size)) return std::nullopt;
    const uint32_t n = (static_cast<uint32_t>(static_cast<unsigned char>(size[0])) << 24) |
                       (static_cast<uint32_t>(static_cast<unsigned char>(size[1])) << 16) |
                       (static_cast<uint32_t>(static_cast<unsigned char>(size[2])) << 8) |
                       static_cast<uint32_t>(static_cast<unsigned char>(size[3]));
    std::string payload;
    if (n > (1u << 31) || !read_exactly(n, timeout, payload)) return std::nullopt;
    return payload;
  }

  // Whether the server closed the connection (end of stream) within `timeout`.
  bool closed_by_peer(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return false;
    char byte = 0;
    return ::recv(fd_, &byte, 1, 0) <= 0;
  }

 private:
  bool read_exactly(size_t n, std::chrono::milliseconds timeout, std::string& out) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    char chunk[65536];
    while (out.size() < n) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{fd_, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
      const ssize_t got = ::recv(fd_, chunk, std::min(sizeof chunk, n - out.size()), 0);
      if (got <= 0) return false;
      out.append(chunk, static_cast<size_t>(got));
    }
    return true;
  }

  int fd_ = -1;
  bool connected_ = false;
};

}  // namespace lds::test
