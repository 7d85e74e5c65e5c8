// listener_test.cpp: the Kafka listener's transport with a stand-in handler: replies in request
// order under a slow handler and several workers, a client that never reads its replies holding
// no one else up nor more than one reply of memory (per connection and over all of them), a
// waiting request (a Fetch's max_wait_ms) holding neither a worker nor its connection's order, a
// close requested by the handler sent after the replies before it, connections.max.idle.ms,
// max.connections (fixed and lowered), and stop() with connections open.
#include "kafka/server/listener.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "frame_client.h"
#include "model/wire.h"

namespace lds::kafka {
namespace {

using namespace std::chrono_literals;

std::string frame(const std::string& payload) { return test::FrameClient::frame(payload); }

// A stand-in request: a correlation id (int32) and the size of the reply wanted (int32).
std::string request(int32_t id, int32_t reply_bytes = 0) {
  Writer w;
  w.int32(id);
  w.int32(reply_bytes);
  return frame(w.bytes());
}

using Client = test::FrameClient;

int32_t id_of(const std::string& payload) {
  Reader r(payload);
  return r.int32();
}

// Replies with the request's id and as many filler bytes as it asks for; id -1 asks to close.
Reply echo(std::string_view frame_bytes, const std::function<void()>& before = nullptr) {
  if (before) before();
  Reader in(frame_bytes);
  const int32_t id = in.int32();
  const int32_t size = in.int32();
  Reply r;
  if (id == -1) {
    r.close_reason = "asked to close";
    return r;
  }
  Writer out;
  out.int32(id);
  out.raw(std::string(static_cast<size_t>(size), 'x'));
  r.frame = out.take();
  return r;
}

KafkaListener::Options local_options() {
  KafkaListener::Options o;
  o.host = "127.0.0.1";
  o.port = 0;
  o.max_frame_bytes = 1 << 20;
  o.workers = 4;
  return o;
}

TEST(KafkaListener, RepliesComeBackInRequestOrderUnderASlowHandler) {
  KafkaListener listener(local_options());
  std::atomic<uint64_t> seed{1};
  listener.start([&seed](std::string_view f, auto /*received*/) {
    return echo(f, [&seed] {
      std::minstd_rand rng(static_cast<uint32_t>(seed++));
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 2000));
    });
  });
  std::vector<std::unique_ptr<Client>> clients;
  for (int c = 0; c < 4; ++c) {
    clients.push_back(std::make_unique<Client>(listener.bound_port()));
    std::string burst;
    for (int32_t id = 0; id < 100; ++id) burst += request(c * 1000 + id, id % 7);
    ASSERT_TRUE(clients.back()->send_all(burst));
  }
  for (int c = 0; c < 4; ++c) {
    for (int32_t id = 0; id < 100; ++id) {
      std::optional<std::string> reply = clients[static_cast<size_t>(c)]->read_frame();
      ASSERT_TRUE(reply.has_value()) << c << "/" << id;
      EXPECT_EQ(id_of(*reply), c * 1000 + id);
      EXPECT_EQ(reply->size(), 4u + static_cast<size_t>(id % 7));
    }
  }
}

TEST(KafkaListener, AClientThatNeverReadsHoldsNoOneElseUp) {
  KafkaListener listener(local_options());
  listener.start([](std::string_view f, auto /*received*/) { return echo(f); });
  // Asks for 256 KiB replies and never reads them: its replies back up in the broker and the
  // kernel, and the broker stops reading from it.
  Client hog(listener.bound_port());
  ASSERT_TRUE(hog.connected());
  const std::string big = request(1, 256 * 1024);
  size_t pushed = 0;
  for (int i = 0; i < 2000; ++i) pushed += hog.send_some(big);
  EXPECT_GT(pushed, big.size());
  for (int32_t id = 0; id < 10; ++id) {
    Client other(listener.bound_port());
    ASSERT_TRUE(other.send_all(request(id, 10)));
    std::optional<std::string> reply = other.read_frame();
    ASSERT_TRUE(reply.has_value()) << id;
    EXPECT_EQ(id_of(*reply), id);
  }
}

// Waits until `value` has not changed for 300 ms (at most 5 s); returns it.
size_t settled(const std::function<size_t()>& value) {
  size_t last = value();
  for (int still = 0, i = 0; still < 30 && i < 500; ++i) {
    std::this_thread::sleep_for(10ms);
    const size_t now = value();
    still = now == last ? still + 1 : 0;
    last = now;
  }
  return last;
}

TEST(KafkaListener, AClientThatPipelinesAndNeverReadsIsMutedHoldingOneReply) {
  KafkaListener listener(local_options());
  std::atomic<int> answered{0};
  listener.start([&answered](std::string_view f, auto /*received*/) {
    ++answered;
    return echo(f);
  });
  // 60 requests for 4 MiB replies each, sent at once and never read: 240 MiB if all were
  // answered. The socket's buffers take a few replies; the broker holds the one it could not send
  // and answers nothing more.
  constexpr int32_t kReply = 4 << 20;
  Client hog(listener.bound_port());
  std::string burst;
  for (int32_t id = 0; id < 60; ++id) burst += request(id, kReply);
  ASSERT_TRUE(hog.send_all(burst));
  const size_t unsent = settled([&] { return listener.unsent_bytes(); });
  EXPECT_LE(unsent, size_t{256 << 10} + kReply + 8);
  EXPECT_GT(unsent, 0u);
  const int before = answered.load();
  EXPECT_LE(before, 10) << "the requests behind the unread replies were answered";
  // Everyone else is served meanwhile.
  for (int32_t id = 0; id < 5; ++id) {
    Client other(listener.bound_port());
    ASSERT_TRUE(other.send_all(request(1000 + id, 10)));
    std::optional<std::string> reply = other.read_frame(5s);
    ASSERT_TRUE(reply.has_value()) << id;
    EXPECT_EQ(id_of(*reply), 1000 + id);
  }
  EXPECT_EQ(answered.load(), before + 5);
  // The client reads at last: every reply, whole and in order.
  for (int32_t id = 0; id < 60; ++id) {
    std::optional<std::string> reply = hog.read_frame(10s);
    ASSERT_TRUE(reply.has_value()) << id;
    EXPECT_EQ(id_of(*reply), id);
    EXPECT_EQ(reply->size(), 4u + kReply);
  }
  EXPECT_EQ(listener.unsent_bytes(), 0u);
}

TEST(KafkaListener, UnreadRepliesOverAllConnectionsStayWithinTheTotalBudget) {
  KafkaListener::Options o = local_options();
  o.unsent_per_connection = 4 << 20;
  o.unsent_total = 1 << 20;
  KafkaListener listener(o);
  listener.start([](std::string_view f, auto /*received*/) { return echo(f); });
  // Five clients each ask for 200 replies of 64 KiB and read none: within its own budget each
  // could hold 4 MiB; together they hold about the total budget, one reply more each at most.
  constexpr int32_t kReply = 64 << 10;
  std::vector<std::unique_ptr<Client>> hogs;
  for (int c = 0; c < 5; ++c) {
    hogs.push_back(std::make_unique<Client>(listener.bound_port()));
    std::string burst;
    for (int32_t id = 0; id < 200; ++id) burst += request(c * 1000 + id, kReply);
    ASSERT_EQ(hogs.back()->send_some(burst), burst.size());
  }
  const size_t unsent = settled([&] { return listener.unsent_bytes(); });
  EXPECT_LE(unsent, size_t{1 << 20} + 5 * (kReply + 8));
  EXPECT_GE(unsent, size_t{1 << 20});
  Client other(listener.bound_port());
  ASSERT_TRUE(other.send_all(request(7, 10)));
  EXPECT_TRUE(other.read_frame(5s).has_value());
  for (int c = 0; c < 5; ++c) {
    for (int32_t id = 0; id < 200; ++id) {
      std::optional<std::string> reply = hogs[static_cast<size_t>(c)]->read_frame(10s);
      ASSERT_TRUE(reply.has_value()) << c << "/" << id;
      ASSERT_EQ(id_of(*reply), c * 1000 + id);
    }
  }
}

// Reads whatever comes until the server closes the connection; false if it does not within
// `timeout`. Reading is activity: call it once the connection is closed or meant to be.
bool read_until_closed(Client& c, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (c.read_frame(200ms).has_value()) continue;
    if (c.closed_by_peer(50ms)) return true;
  }
  return false;
}

TEST(KafkaListener, ConnectionsIdleForConnectionsMaxIdleMsAreClosed) {
  KafkaListener::Options o = local_options();
  o.idle_ms = 300;
  KafkaListener listener(o);
  listener.start([](std::string_view f, auto /*received*/) { return echo(f); });
  Client silent(listener.bound_port());
  Client half(listener.bound_port());
  Client unread(listener.bound_port());
  Client busy(listener.bound_port());
  ASSERT_TRUE(half.send_all(std::string("\x00\x00\x10\x00\x00\x00", 6)));  // a frame cut short
  std::string burst;
  for (int32_t id = 0; id < 20; ++id) burst += request(id, 4 << 20);
  ASSERT_TRUE(unread.send_all(burst));  // replies it never reads
  // A client that asks every 100 ms is not idle; the three others are closed meanwhile, the
  // unsent replies with them.
  const auto start = std::chrono::steady_clock::now();
  int32_t id = 0;
  for (; id < 40 && (id < 5 || listener.connections() > 1); ++id) {
    ASSERT_TRUE(busy.send_all(request(id))) << id;
    ASSERT_TRUE(busy.read_frame(2s).has_value()) << id;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_LT(id, 40) << listener.connections() << " connections still open";
  EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
  EXPECT_EQ(listener.connections(), 1u);
  EXPECT_EQ(listener.unsent_bytes(), 0u);
  EXPECT_TRUE(read_until_closed(silent, 3s));
  EXPECT_TRUE(read_until_closed(half, 3s));
  EXPECT_TRUE(read_until_closed(unread, 10s));
}

TEST(KafkaListener, ConnectionsBeyondMaxConnectionsWaitUntilOneCloses) {
  KafkaListener::Options o = local_options();
  o.max_connections = 2;
  KafkaListener listener(o);
  listener.start([](std::string_view f, auto /*received*/) { return echo(f); });
  auto first = std::make_unique<Client>(listener.bound_port());
  Client second(listener.bound_port());
  ASSERT_TRUE(first->send_all(request(1)) && second.send_all(request(2)));
  ASSERT_TRUE(first->read_frame(2s).has_value() && second.read_frame(2s).has_value());
  // The third is connected by the kernel but not accepted: its request is not answered.
  Client third(listener.bound_port());
  ASSERT_TRUE(third.connected());
  ASSERT_TRUE(third.send_all(request(3)));
  EXPECT_FALSE(third.read_frame(500ms).has_value());
  EXPECT_EQ(listener.connections(), 2u);
  ASSERT_TRUE(second.send_all(request(22)));
  EXPECT_TRUE(second.read_frame(2s).has_value());
  // One closes: the third is taken and answered.
  first.reset();
  std::optional<std::string> reply = third.read_frame(5s);
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(id_of(*reply), 3);

  // Lowered below the connections open: the least recently active goes.
  ASSERT_TRUE(third.send_all(request(33)));
  ASSERT_TRUE(third.read_frame(2s).has_value());
  listener.set_max_connections(1);
  EXPECT_TRUE(read_until_closed(second, 3s));
  ASSERT_TRUE(third.send_all(request(34)));
  EXPECT_TRUE(third.read_frame(2s).has_value());
  EXPECT_EQ(listener.connections(), 1u);
}

TEST(KafkaListener, LoweringMaxConnectionsClosesTheLeastRecentlyActiveEvenMidAnswer) {
  KafkaListener::Options o = local_options();
  std::promise<void> answering;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  KafkaListener listener(o);
  listener.start([&](std::string_view f, auto /*received*/) {
    if (id_of(std::string(f)) == 7) {
      answering.set_value();
      released.wait();
    }
    return echo(f);
  });
  Client oldest(listener.bound_port());
  ASSERT_TRUE(oldest.send_all(request(1)));
  ASSERT_TRUE(oldest.read_frame(2s).has_value());
  Client newest(listener.bound_port());
  ASSERT_TRUE(newest.send_all(request(2)));
  ASSERT_TRUE(newest.read_frame(2s).has_value());
  // The least recently active is being answered when the limit drops to one: it gets its answer,
  // then closes; the newer connection stays.
  ASSERT_TRUE(oldest.send_all(request(7)));
  answering.get_future().wait();
  std::this_thread::sleep_for(50ms);  // the newer one's last reply, sent after request 7 was read
  ASSERT_TRUE(newest.send_all(request(8)));
  ASSERT_TRUE(newest.read_frame(2s).has_value());
  listener.set_max_connections(1);
  std::this_thread::sleep_for(200ms);
  release.set_value();
  std::optional<std::string> reply = oldest.read_frame(2s);
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(id_of(*reply), 7);
  EXPECT_TRUE(read_until_closed(oldest, 3s));
  ASSERT_TRUE(newest.send_all(request(9)));
  std::optional<std::string> still = newest.read_frame(2s);
  ASSERT_TRUE(still.has_value());
  EXPECT_EQ(id_of(*still), 9);
}

// Id -2 stands for a Fetch finding nothing: it waits `size` milliseconds from its arrival, or
// until `ready` is set and the listener is woken, then answers its id.
Reply wait_or_echo(std::string_view frame_bytes, std::chrono::steady_clock::time_point received,
                   const std::atomic<bool>& ready) {
  Reader in(frame_bytes);
  const int32_t id = in.int32();
  const int32_t wait_ms = in.int32();
  if (id != -2) return echo(frame_bytes);
  const auto deadline = received + std::chrono::milliseconds(wait_ms);
  Reply r;
  if (!ready && std::chrono::steady_clock::now() < deadline) {
    r.retry_at = deadline;
    return r;
  }
  Writer out;
  out.int32(id);
  r.frame = out.take();
  return r;
}

TEST(KafkaListener, WaitingRequestsHoldNoWorkerAndKeepTheirConnectionsOrder) {
  KafkaListener::Options o = local_options();
  o.workers = 1;
  KafkaListener listener(o);
  std::atomic<bool> ready{false};
  listener.start(
      [&ready](std::string_view f, auto received) { return wait_or_echo(f, received, ready); });
  // Three clients wait (longer than the test) with a request pipelined behind each.
  std::vector<std::unique_ptr<Client>> waiting;
  for (int32_t c = 0; c < 3; ++c) {
    waiting.push_back(std::make_unique<Client>(listener.bound_port()));
    ASSERT_TRUE(waiting.back()->send_all(request(-2, 60000) + request(100 + c)));
  }
  // With the only worker free, everyone else is answered meanwhile.
  for (int32_t id = 0; id < 5; ++id) {
    Client other(listener.bound_port());
    ASSERT_TRUE(other.send_all(request(id)));
    std::optional<std::string> reply = other.read_frame(2s);
    ASSERT_TRUE(reply.has_value()) << id;
    EXPECT_EQ(id_of(*reply), id);
  }
  // The request behind a waiting one waits too: replies keep their order.
  EXPECT_FALSE(waiting[0]->read_frame(200ms).has_value());
  ready = true;
  listener.wake_waiting();
  for (int32_t c = 0; c < 3; ++c) {
    std::optional<std::string> first = waiting[static_cast<size_t>(c)]->read_frame(5s);
    std::optional<std::string> second = waiting[static_cast<size_t>(c)]->read_frame(5s);
    ASSERT_TRUE(first.has_value() && second.has_value()) << c;
    EXPECT_EQ(id_of(*first), -2);
    EXPECT_EQ(id_of(*second), 100 + c);
  }
}

TEST(KafkaListener, AWaitingRequestIsAnsweredAtItsDeadlineWithoutAWakeUp) {
  KafkaListener listener(local_options());
  std::atomic<bool> never{false};
  listener.start(
      [&never](std::string_view f, auto received) { return wait_or_echo(f, received, never); });
  Client c(listener.bound_port());
  const auto sent = std::chrono::steady_clock::now();
  ASSERT_TRUE(c.send_all(request(-2, 300)));
  std::optional<std::string> reply = c.read_frame(5s);
  const auto waited = std::chrono::steady_clock::now() - sent;
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(id_of(*reply), -2);
  EXPECT_GE(waited, 300ms);
  EXPECT_LT(waited, 1500ms);
}

TEST(KafkaListener, AHandlerCloseSendsEarlierRepliesThenCloses) {
  KafkaListener listener(local_options());
  listener.start([](std::string_view f, auto /*received*/) { return echo(f); });
  Client c(listener.bound_port());
  ASSERT_TRUE(c.send_all(request(1) + request(2) + request(-1) + request(3)));
  EXPECT_EQ(id_of(c.read_frame().value_or(std::string(4, '\xff'))), 1);
  EXPECT_EQ(id_of(c.read_frame().value_or(std::string(4, '\xff'))), 2);
  EXPECT_TRUE(c.closed_by_peer());
}

TEST(KafkaListener, RequestsSentBeforeTheClientShutsItsSideAreStillAnswered) {
  KafkaListener listener(local_options());
  listener.start([](std::string_view f, auto /*received*/) { return echo(f); });
  Client c(listener.bound_port());
  ASSERT_TRUE(c.send_all(request(1) + request(2, 100000)));
  c.shut_write();
  EXPECT_EQ(id_of(c.read_frame().value_or(std::string(4, '\xff'))), 1);
  EXPECT_EQ(id_of(c.read_frame().value_or(std::string(4, '\xff'))), 2);
  EXPECT_TRUE(c.closed_by_peer());
}

TEST(KafkaListener, StopClosesOpenConnectionsAndReportsNoHandlerLeftBehind) {
  KafkaListener listener(local_options());
  listener.start([](std::string_view f, auto /*received*/) { return echo(f); });
  Client idle(listener.bound_port());
  Client partial(listener.bound_port());
  ASSERT_TRUE(partial.send_all(std::string("\x00\x00\x00\x10\x00", 5)));
  ASSERT_TRUE(idle.send_all(request(5)));
  ASSERT_TRUE(idle.read_frame().has_value());
  EXPECT_EQ(listener.stop(), 0u);
  EXPECT_TRUE(idle.closed_by_peer());
  EXPECT_TRUE(partial.closed_by_peer());
}

TEST(KafkaListener, AnAddressThatCannotBeResolvedIsNamed) {
  KafkaListener::Options o = local_options();
  o.host = "no-such-host.invalid";
  try {
    KafkaListener listener(o);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("Cannot listen on listeners PLAINTEXT://no-such-host"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace lds::kafka
