// stream_server_test.cpp: the stream server with a stand-in line protocol, replies queued or sent
// by the worker: pipelined requests answered in order, a half-closed client still answered, the
// connection limit refusing the one too many, stop() leaving a stuck handler behind, parked
// requests holding no worker, and a lowered limit closing the least recently used connection.
#include "net/stream_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "util/logging.h"

namespace lds {
namespace {

// One request a line; the reply is "ok <line>\n". A line starting "slow" is for the slow pool. The
// lines "block" and "slow block" wait until release(); the reply to "linger", sent by the worker,
// waits there once it has been sent. The line "wait <ms>" is parked (StreamReply::retry) until
// <ms> after it arrived, or until set_ready() and the server's wake_parked().
class LineProtocol final : public StreamProtocol {
 public:
  explicit LineProtocol(bool queued) : queued_(queued) {}

  bool more_input_wanted(const StreamConnection& c) const override { return c.input.size() < 4096; }
  bool request_ready(StreamConnection& c) override {
    return c.input.find('\n') != std::string::npos;
  }
  bool slow(const StreamConnection& c) const override { return c.input.starts_with("slow"); }
  bool take_request(StreamConnection& c, StreamRequest& request) override {
    const size_t nl = c.input.find('\n');
    if (nl == std::string::npos) {
      std::lock_guard lock(mu_);
      if (c.fd == lingering_fd_) ++found_none_;
      cv_.notify_all();
      return false;
    }
    request.bytes = c.input.substr(0, nl);
    c.input.erase(0, nl + 1);
    return true;
  }
  StreamReply answer(const StreamConnection& /*c*/, StreamRequest request) override {
    if (request.bytes == "block" || request.bytes == "slow block") {
      std::unique_lock lock(mu_);
      blocked_ = true;
      cv_.notify_all();
      cv_.wait(lock, [this] { return released_; });
    }
    if (request.bytes.rfind("wait ", 0) == 0 && !ready_) {
      const auto due =
          request.received + std::chrono::milliseconds(std::stoi(request.bytes.substr(5)));
      if (std::chrono::steady_clock::now() < due) {
        StreamReply later;
        later.retry = request;
        later.retry_at = due;
        return later;
      }
    }
    StreamReply reply;
    reply.bytes = "ok " + request.bytes + "\n";
    return reply;
  }
  void set_ready() { ready_ = true; }
  bool queues_replies() const override { return queued_; }
  bool send_now(int fd, std::string_view reply) override {
    const bool sent =
        ::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(reply.size());
    if (reply == "ok linger\n") {
      std::unique_lock lock(mu_);
      lingering_fd_ = fd;
      cv_.wait(lock, [this] { return released_; });
    }
    return sent;
  }
  std::string accepted(int /*fd*/, const sockaddr_storage& /*peer*/) override { return {}; }
  void refuse(int fd, StreamRefusal why, size_t /*open*/) override {
    if (fd >= 0 && why == StreamRefusal::kTooManyConnections) {
      (void)!::send(fd, "refused\n", 8, MSG_NOSIGNAL);
    }
  }

  void abandoning(size_t handlers, std::chrono::seconds /*grace*/) override {
    abandoned_reported += handlers;
  }
  size_t abandoned_reported =
      0;  // what stop() said it left behind (stop() runs on the test's thread)

  void wait_until_blocked() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return blocked_; });
  }
  void release() {
    std::lock_guard lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  // How often a worker looked for the lingering connection's next request and found none.
  size_t found_none() {
    std::lock_guard lock(mu_);
    return found_none_;
  }
  void wait_until_found_none_exceeds(size_t n) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return found_none_ > n; });
  }

 private:
  const bool queued_;
  std::atomic<bool> ready_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool blocked_ = false;
  bool released_ = false;
  int lingering_fd_ = -1;  // the server's end of the connection whose reply lingered
  size_t found_none_ = 0;
};

// A listening socket on a free loopback port.
int listen_on_loopback(int& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_EQ(::listen(fd, 16), 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  port = ntohs(addr.sin_port);
  return fd;
}

int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  // A server that never answers fails the test instead of hanging it.
  const timeval limit{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  return fd;
}

// Reads until `lines` lines arrived or the server closed the connection.
std::string read_lines(int fd, size_t lines) {
  std::string got;
  char buf[4096];
  while (static_cast<size_t>(std::count(got.begin(), got.end(), '\n')) < lines) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  return got;
}

// Whether the server closed `fd` (end of stream) within its receive timeout, nothing read first.
bool closed_by_server(int fd) {
  char byte = 0;
  return ::recv(fd, &byte, 1, 0) == 0;
}

StreamServer::Options options(size_t workers) {
  StreamServer::Options o;
  o.name = "test server";
  o.log = logger("lds.test");
  o.workers = workers;
  return o;
}

class StreamServerTest : public ::testing::TestWithParam<bool> {};

TEST_P(StreamServerTest, PipelinedRequestsAreAnsweredInOrder) {
  int port = 0;
  StreamServer server(listen_on_loopback(port), std::make_shared<LineProtocol>(GetParam()),
                      options(4));
  server.start();
  const int fd = connect_to(port);
  std::string requests, expected;
  for (int i = 0; i < 200; ++i) {
    requests += std::to_string(i) + "\n";
    expected += "ok " + std::to_string(i) + "\n";
  }
  ASSERT_EQ(::send(fd, requests.data(), requests.size(), 0), static_cast<ssize_t>(requests.size()));
  EXPECT_EQ(read_lines(fd, 200), expected);
  ::close(fd);
  EXPECT_EQ(server.stop(), 0u);
}

TEST_P(StreamServerTest, AHalfClosedClientIsAnsweredThenClosed) {
  int port = 0;
  StreamServer server(listen_on_loopback(port), std::make_shared<LineProtocol>(GetParam()),
                      options(2));
  server.start();
  const int fd = connect_to(port);
  const std::string requests = "a\nb\nc\nincomplete";
  ASSERT_EQ(::send(fd, requests.data(), requests.size(), 0), static_cast<ssize_t>(requests.size()));
  ::shutdown(fd, SHUT_WR);
  // Everything up to the end of stream: the three answers, then the server's close.
  EXPECT_EQ(read_lines(fd, 4), "ok a\nok b\nok c\n");
  ::close(fd);
  server.stop();
}

TEST_P(StreamServerTest, TheConnectionOverTheLimitIsRefused) {
  int port = 0;
  StreamServer::Options o = options(2);
  o.max_connections = 2;
  StreamServer server(listen_on_loopback(port), std::make_shared<LineProtocol>(GetParam()), o);
  server.start();
  const int first = connect_to(port);
  const int second = connect_to(port);
  const int third = connect_to(port);
  EXPECT_EQ(read_lines(third, 2), "refused\n");  // then closed
  for (int fd : {first, second}) {
    ASSERT_EQ(::send(fd, "x\n", 2, 0), 2);
    EXPECT_EQ(read_lines(fd, 1), "ok x\n");
  }
  for (int fd : {first, second, third}) ::close(fd);
  server.stop();
}

TEST_P(StreamServerTest, StopLeavesAStuckHandlerBehindAndCountsIt) {
  int port = 0;
  auto protocol = std::make_shared<LineProtocol>(GetParam());
  // One worker: with no grace, an idle one might not have seen the stop yet and would count too.
  StreamServer::Options o = options(1);
  o.stop_grace = std::chrono::seconds(0);
  StreamServer server(listen_on_loopback(port), protocol, o);
  server.start();
  const int fd = connect_to(port);
  ASSERT_EQ(::send(fd, "block\nnext\n", 11, 0), 11);
  protocol->wait_until_blocked();
  EXPECT_EQ(server.stop(), 1u);
  EXPECT_EQ(server.stop(), 1u);  // later calls give the same count, and say it once
  EXPECT_EQ(protocol->abandoned_reported, 1u);
  EXPECT_EQ(server.connections(), 0u);
  // The abandoned worker still finds its connection when it returns. Queued replies have no loop
  // left to send them, so that worker takes no further request; one that sends its own replies
  // answers all it was given.
  protocol->release();
  EXPECT_EQ(read_lines(fd, 2), GetParam() ? "" : "ok block\nok next\n");
  ::close(fd);
}

// A parked request holds no worker: with one worker, other clients are answered while three wait,
// each with a request pipelined behind it that waits too. wake_parked() answers them at once.
TEST_P(StreamServerTest, ParkedRequestsHoldNoWorkerAndKeepTheirOrder) {
  int port = 0;
  auto protocol = std::make_shared<LineProtocol>(GetParam());
  StreamServer server(listen_on_loopback(port), protocol, options(1));
  server.start();
  std::vector<int> waiting;
  for (int i = 0; i < 3; ++i) {
    waiting.push_back(connect_to(port));
    ASSERT_EQ(::send(waiting.back(), "wait 60000\nafter\n", 17, 0), 17);
  }
  for (int i = 0; i < 5; ++i) {
    const int fd = connect_to(port);
    ASSERT_EQ(::send(fd, "x\n", 2, 0), 2);
    EXPECT_EQ(read_lines(fd, 1), "ok x\n");
    ::close(fd);
  }
  char byte = 0;
  EXPECT_EQ(::recv(waiting[0], &byte, 1, MSG_DONTWAIT), -1);  // nothing yet, not even "after"
  protocol->set_ready();
  server.wake_parked();
  for (int fd : waiting) {
    EXPECT_EQ(read_lines(fd, 2), "ok wait 60000\nok after\n");
    ::close(fd);
  }
  EXPECT_EQ(server.stop(), 0u);
}

// Slow requests have their own workers: with its one slow worker stuck and more slow requests
// queued, quick requests are still answered, a connection's requests keep their order across the
// lanes, and the queued slow ones are answered once the stuck one returns.
TEST_P(StreamServerTest, SlowRequestsNeverHoldTheQuickOnesWorkers) {
  int port = 0;
  auto protocol = std::make_shared<LineProtocol>(GetParam());
  StreamServer::Options o = options(1);
  o.slow_workers = 1;
  StreamServer server(listen_on_loopback(port), protocol, o);
  server.start();
  std::vector<int> slow;
  for (int i = 0; i < 3; ++i) {
    slow.push_back(connect_to(port));
    ASSERT_EQ(::send(slow.back(), "slow block\n", 11, 0), 11);
  }
  protocol->wait_until_blocked();
  const int mixed = connect_to(port);
  ASSERT_EQ(::send(mixed, "a\nb\n", 4, 0), 4);
  EXPECT_EQ(read_lines(mixed, 2), "ok a\nok b\n");
  for (int i = 0; i < 5; ++i) {
    const int fd = connect_to(port);
    ASSERT_EQ(::send(fd, "x\n", 2, 0), 2);
    EXPECT_EQ(read_lines(fd, 1), "ok x\n");
    ::close(fd);
  }
  protocol->release();
  for (int fd : slow) {
    EXPECT_EQ(read_lines(fd, 1), "ok slow block\n");
    ::close(fd);
  }
  ASSERT_EQ(::send(mixed, "c\nslow d\ne\nslow f\n", 19, 0), 19);
  EXPECT_EQ(read_lines(mixed, 4), "ok c\nok slow d\nok e\nok slow f\n");
  ::close(mixed);
  EXPECT_EQ(server.stop(), 0u);
}

TEST_P(StreamServerTest, AParkedRequestIsAskedAgainWhenDue) {
  int port = 0;
  StreamServer server(listen_on_loopback(port), std::make_shared<LineProtocol>(GetParam()),
                      options(2));
  server.start();
  const int fd = connect_to(port);
  const auto sent = std::chrono::steady_clock::now();
  ASSERT_EQ(::send(fd, "wait 300\n", 9, 0), 9);
  EXPECT_EQ(read_lines(fd, 1), "ok wait 300\n");
  const auto waited = std::chrono::steady_clock::now() - sent;
  EXPECT_GE(waited, std::chrono::milliseconds(300));
  EXPECT_LT(waited, std::chrono::milliseconds(1500));
  ::close(fd);
  // Stopping with a request parked closes its connection.
  const int parked = connect_to(port);
  ASSERT_EQ(::send(parked, "wait 60000\n", 11, 0), 11);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(server.stop(), 0u);
  EXPECT_EQ(read_lines(parked, 1), "");
  ::close(parked);
}

// The connection a lowered max.connections closes is the one its client used least recently. A
// worker that lingers after sending its reply, while the client goes on elsewhere, does not make
// that connection look the more recent one.
TEST(StreamServerLimitTest, ALingeringWorkerDoesNotMakeItsConnectionTheRecentOne) {
  int port = 0;
  auto protocol = std::make_shared<LineProtocol>(false);
  StreamServer server(listen_on_loopback(port), protocol, options(2));
  server.start();
  const int older = connect_to(port);
  const int recent = connect_to(port);
  ASSERT_EQ(::send(older, "linger\n", 7, 0), 7);
  EXPECT_EQ(read_lines(older, 1), "ok linger\n");
  // The client has its reply; it goes on with its other connection, while the first's worker
  // still holds the first.
  ASSERT_EQ(::send(recent, "x\n", 2, 0), 2);
  EXPECT_EQ(read_lines(recent, 1), "ok x\n");
  const size_t before = protocol->found_none();
  protocol->release();
  protocol->wait_until_found_none_exceeds(before);  // the lingering worker has let go
  server.set_max_connections(1);
  EXPECT_TRUE(closed_by_server(older));
  ASSERT_EQ(::send(recent, "y\n", 2, 0), 2);
  EXPECT_EQ(read_lines(recent, 1), "ok y\n");
  for (int fd : {older, recent}) ::close(fd);
  server.stop();
}

INSTANTIATE_TEST_SUITE_P(Replies, StreamServerTest, ::testing::Values(true, false),
                         [](const auto& p) { return p.param ? "Queued" : "SentByWorker"; });

}  // namespace
}  // namespace lds
