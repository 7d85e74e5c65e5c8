// reliability_support.h: pieces the reliability suites share: a raw admin-socket client with
// timeouts (any bytes out, one line back), and byte-for-byte checks of a partition on disk.
#pragma once

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "filler_log.h"
#include "io/log_layout.h"

namespace lds::integration {

namespace fs = std::filesystem;

// One connection to the admin socket. send() writes raw bytes; read_line() returns the next
// response line, or nullopt when the server closed the connection or did not answer in time.
class RawClient {
 public:
  explicit RawClient(const fs::path& socket, int timeout_seconds = 60) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socket.c_str(), sizeof addr.sun_path - 1);
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval tv{timeout_seconds, 0};
    if (fd_ < 0 || ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
        ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0 ||
        ::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
      const int err = errno;
      if (fd_ >= 0) ::close(fd_);
      throw std::runtime_error("cannot connect to " + socket.string() + ": " + std::strerror(err));
    }
  }
  ~RawClient() { ::close(fd_); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  std::optional<std::string> read_line() {
    char chunk[64 * 1024];
    for (;;) {
      if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return std::nullopt;
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

  // Sends `line` and a newline; the parsed response, or a JSON object whose "error" says what went
  // wrong on the client side (CLIENT_FAILURE, NOT_JSON).
  nlohmann::json call(std::string_view line) {
    std::string out(line);
    out += '\n';
    if (!send(out)) return {{"error", "CLIENT_FAILURE"}, {"message", "send failed"}};
    std::optional<std::string> response = read_line();
    if (!response) return {{"error", "CLIENT_FAILURE"}, {"message", "no response"}};
    nlohmann::json parsed = nlohmann::json::parse(*response, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object()) {
      return {{"error", "NOT_JSON"}, {"message", *response}};
    }
    return parsed;
  }

  // Bytes already received after the last line returned.
  const std::string& pending() const { return buffer_; }

 private:
  int fd_ = -1;
  std::string buffer_;
};

// Total size of a partition directory's segment files.
inline uint64_t segment_bytes(const fs::path& partition_dir) {
  uint64_t total = 0;
  for (const auto& e : fs::directory_iterator(partition_dir)) {
    uint64_t base = 0;
    if (layout::parse_segment_file(e.path().filename().string(), &base)) total += e.file_size();
  }
  return total;
}

// "" when `partition_dir` holds exactly `size` bytes of Produce's filler records of (topic,
// partition), a valid Kafka log, with `client`'s records at their offsets; otherwise what is wrong.
inline std::string partition_problem(const fs::path& partition_dir, const std::string& topic,
                                     int32_t partition, uint64_t size,
                                     const std::map<int64_t, test::ClientRecord>& client = {}) {
  return test::filler_log_problem(partition_dir, topic, partition, size, client);
}

// The directories among `log_dirs` that hold partition `name` ("t-0").
inline std::vector<fs::path> copies_of(const std::vector<fs::path>& log_dirs,
                                       const std::string& name) {
  std::vector<fs::path> out;
  for (const auto& d : log_dirs) {
    std::error_code ec;
    if (fs::is_directory(d / name, ec)) out.push_back(d / name);
  }
  return out;
}

}  // namespace lds::integration
