// listener_splice_test.cpp: replies whose bytes are partly in a file (a Fetch's record batches,
// Reply::splices), sent by the Kafka listener with sendfile: a reply of several MiB to a client
// that reads late arrives whole and in order with the replies around it, even after its file was
// unlinked; a file cut short before it is sent closes that connection only.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include "frame_client.h"
#include "io/fd_reserve.h"
#include "io/file_slice.h"
#include "kafka/server/listener.h"
#include "model/wire.h"
#include "temp_dir.h"

namespace lds::kafka {
namespace {

using namespace std::chrono_literals;
using Client = test::FrameClient;

constexpr size_t kFileBytes = size_t{6} << 20;

// Bytes that differ at every position modulo a prime, so a chunk sent twice or skipped shows.
std::string pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + i / 251) & 0xff);
  return s;
}

// A request: its correlation id (int32) and what the handler does with the file (int32).
enum Action : int32_t { kSend = 0, kUnlinkThenSend = 1, kTruncateThenSend = 2, kText = 3 };

std::string request(int32_t id, Action action) {
  Writer w;
  w.int32(id);
  w.int32(action);
  return Client::frame(w.bytes());
}

KafkaListener::Options local_options() {
  KafkaListener::Options o;
  o.host = "127.0.0.1";
  o.port = 0;
  o.max_frame_bytes = 1 << 20;
  o.workers = 2;
  return o;
}

class ListenerSpliceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    contents_ = pattern(kFileBytes);
    std::ofstream(path_, std::ios::binary) << contents_;
  }

  // Replies: the id, then "<" + (the file's bytes, or nothing for kText) + ">".
  Reply handle(std::string_view frame_bytes) {
    Reader in(frame_bytes);
    const int32_t id = in.int32();
    const auto action = static_cast<Action>(in.int32());
    Writer out;
    out.int32(id);
    out.raw("<");
    Reply r;
    if (action != kText) {
      ReservedFd fd = open_reserved(path_, O_RDONLY | O_CLOEXEC);
      auto file = std::make_shared<const SliceFile>(std::move(fd), path_);
      r.splices.push_back({out.bytes().size(), FileSlice{file, 0, kFileBytes}});
      if (action == kUnlinkThenSend) std::filesystem::remove(path_);
      if (action == kTruncateThenSend) std::filesystem::resize_file(path_, kFileBytes / 2);
    }
    out.raw(">");
    r.frame = out.take();
    return r;
  }

  void start(KafkaListener& listener) {
    listener.start([this](std::string_view f, auto /*received*/) { return handle(f); });
  }

  test::TempDir dir_;
  std::filesystem::path path_ = dir_.path() / "00000000000000000000.log";
  std::string contents_;
};

// Whether every SliceFile is closed within 5 s: the sender lets go of a file just after its last
// byte went out, which may be just after the client read it.
bool slice_files_closed() {
  for (int i = 0; i < 500 && open_slice_files() != 0; ++i) std::this_thread::sleep_for(10ms);
  return open_slice_files() == 0;
}

std::string expected_reply(int32_t id, const std::string& body) {
  Writer w;
  w.int32(id);
  w.raw("<" + body + ">");
  return w.take();
}

TEST_F(ListenerSpliceTest, AFileReplyToALateReaderArrivesWholeBetweenTheRepliesAroundIt) {
  KafkaListener listener(local_options());
  start(listener);
  Client client(listener.bound_port());
  ASSERT_TRUE(client.send_all(request(1, kText) + request(2, kSend) + request(3, kText) +
                              request(4, kSend)));
  // Several MiB do not fit the socket's buffers: the sender must stop and resume mid-file.
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(client.read_frame(), expected_reply(1, ""));
  EXPECT_EQ(client.read_frame(), expected_reply(2, contents_));
  EXPECT_EQ(client.read_frame(), expected_reply(3, ""));
  EXPECT_EQ(client.read_frame(), expected_reply(4, contents_));
  EXPECT_TRUE(slice_files_closed()) << "a sent reply still holds its file open";
}

TEST_F(ListenerSpliceTest, AFileUnlinkedBeforeItsReplyIsSentIsStillSentWhole) {
  KafkaListener listener(local_options());
  start(listener);
  Client client(listener.bound_port());
  ASSERT_TRUE(client.send_all(request(7, kUnlinkThenSend)));
  std::this_thread::sleep_for(200ms);
  EXPECT_FALSE(std::filesystem::exists(path_));
  EXPECT_EQ(client.read_frame(), expected_reply(7, contents_));
}

TEST_F(ListenerSpliceTest, AFileCutShortClosesItsConnectionOnly) {
  KafkaListener listener(local_options());
  start(listener);
  Client cut(listener.bound_port());
  ASSERT_TRUE(cut.send_all(request(1, kText) + request(2, kTruncateThenSend)));
  EXPECT_EQ(cut.read_frame(), expected_reply(1, ""));
  // The reply's size was announced for the whole slice; what follows is cut off, then the end of
  // the stream: never a frame padded or shifted into the next.
  EXPECT_EQ(cut.read_frame(), std::nullopt);
  EXPECT_TRUE(cut.closed_by_peer(5s));

  std::ofstream(path_, std::ios::binary | std::ios::trunc) << contents_;
  Client other(listener.bound_port());
  ASSERT_TRUE(other.send_all(request(3, kSend)));
  EXPECT_EQ(other.read_frame(), expected_reply(3, contents_));
  EXPECT_TRUE(slice_files_closed());
}

}  // namespace
}  // namespace lds::kafka
