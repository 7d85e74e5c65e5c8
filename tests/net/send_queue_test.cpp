// send_queue_test.cpp: a connection's queued replies over a socket pair: text and file slices in
// the order queued, whole through a small socket buffer read slowly; a slice whose file was
// deleted after queuing still sent whole; one whose file was cut short, or a peer gone, ends the
// sending with the reason, never a SIGPIPE.
#include "net/send_queue.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "io/fd_reserve.h"
#include "temp_dir.h"

namespace lds {
namespace {

namespace fs = std::filesystem;

class SendQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The queue's caller blocks SIGPIPE (StreamServer's loop does); so does this thread.
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, &old_mask_);
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds_), 0);
    const int small = 4096;  // the kernel doubles it; still far below what is sent
    ::setsockopt(fds_[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    content_.resize(3 << 20);
    for (size_t i = 0; i < content_.size(); ++i) content_[i] = static_cast<char>('a' + i * 7 % 26);
    path_ = dir_.path() / "00000000000000000000.log";
    std::ofstream(path_, std::ios::binary)
        .write(content_.data(), static_cast<long>(content_.size()));
  }
  void TearDown() override {
    for (int fd : fds_) {
      if (fd >= 0) ::close(fd);
    }
    pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
  }

  FileSlice slice(uint64_t position, uint64_t length) {
    ReservedFd fd = open_reserved(path_, O_RDONLY);
    EXPECT_TRUE(fd);
    return FileSlice{std::make_shared<const SliceFile>(std::move(fd), path_), position, length};
  }

  // Sends everything while a reader takes `expected` bytes slowly, and returns what it took.
  std::string send_all_read_slowly(SendQueue& queue, size_t expected) {
    std::string got;
    std::thread reader([&] {
      char buf[8192];
      while (got.size() < expected) {
        const ssize_t n = ::recv(fds_[1], buf, sizeof buf, 0);
        if (n > 0) {
          got.append(buf, static_cast<size_t>(n));
        } else if (n == 0) {
          return;
        } else {
          std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
      }
    });
    for (;;) {
      const SendQueue::Sent sent = queue.send_to(fds_[0]);
      if (sent == SendQueue::Sent::kAll) break;
      EXPECT_EQ(sent, SendQueue::Sent::kBlocked) << queue.failure();
      if (sent != SendQueue::Sent::kBlocked) break;
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    reader.join();
    return got;
  }

  test::TempDir dir_;
  fs::path path_;
  std::string content_;
  int fds_[2] = {-1, -1};
  sigset_t old_mask_{};
};

TEST_F(SendQueueTest, TextAndSlicesGoInTheOrderQueuedWholeThroughASmallBuffer) {
  SendQueue queue;
  // Two replies: text, slice, text, slice, text; then one of text only.
  queue.push("<one>|</one>|", {{6, slice(100, 1 << 20)}, {13, slice(2 << 20, 5)}});
  queue.push("<two/>");
  queue.push("x", {{1, slice(0, (3 << 20) - 1)}});
  const size_t total = 13 + (1 << 20) + 5 + 6 + 1 + (3 << 20) - 1;
  EXPECT_EQ(queue.pending(), total);
  const std::string expected = "<one>|" + content_.substr(100, 1 << 20) + "</one>|" +
                               content_.substr(2 << 20, 5) + "<two/>x" +
                               content_.substr(0, (3 << 20) - 1);
  const std::string got = send_all_read_slowly(queue, total);
  EXPECT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
  EXPECT_EQ(queue.pending(), 0u);
}

TEST_F(SendQueueTest, ASliceWhoseFileWasDeletedAfterQueuingIsStillSentWhole) {
  SendQueue queue;
  queue.push("[]", {{1, slice(4096, 1 << 20)}});
  fs::remove(path_);  // a topic deleted, a segment moved away
  const std::string got = send_all_read_slowly(queue, 2 + (1 << 20));
  EXPECT_TRUE(got == "[" + content_.substr(4096, 1 << 20) + "]");
}

TEST_F(SendQueueTest, ASliceWhoseFileWasCutShortEndsTheSendingNamingTheFile) {
  SendQueue queue;
  queue.push("[]", {{1, slice(0, 2 << 20)}});
  fs::resize_file(path_, 1 << 20);  // a hand edit
  std::thread reader([&] {
    char buf[65536];
    size_t total = 0;
    while (total < (1 << 20) + 1) {
      const ssize_t n = ::recv(fds_[1], buf, sizeof buf, 0);
      if (n > 0) total += static_cast<size_t>(n);
      if (n == 0) return;
    }
  });
  SendQueue::Sent sent = SendQueue::Sent::kBlocked;
  while (sent == SendQueue::Sent::kBlocked) {
    sent = queue.send_to(fds_[0]);
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  reader.join();
  EXPECT_EQ(sent, SendQueue::Sent::kFileFailed);
  EXPECT_NE(queue.failure().find(path_.string() + " ended at byte 1048576"), std::string::npos)
      << queue.failure();
  queue.clear();
  EXPECT_EQ(queue.pending(), 0u);
}

TEST_F(SendQueueTest, APeerThatHasGoneEndsTheSendingWithoutASignal) {
  SendQueue queue;
  queue.push("[]", {{1, slice(0, 1 << 20)}});
  ::close(fds_[1]);
  fds_[1] = -1;
  EXPECT_EQ(queue.send_to(fds_[0]), SendQueue::Sent::kPeerGone);
  queue.clear();
  queue.push("text only");
  EXPECT_EQ(queue.send_to(fds_[0]), SendQueue::Sent::kPeerGone);
}

TEST_F(SendQueueTest, SlicesHoldTheirFilesOpenAndAreCounted) {
  const size_t before = open_slice_files();
  {
    SendQueue queue;
    queue.push("[]", {{1, slice(0, 10)}, {1, slice(10, 10)}});
    EXPECT_EQ(open_slice_files(), before + 2);
    EXPECT_GE(slice_budget(), 16u);
  }
  EXPECT_EQ(open_slice_files(), before);
  EXPECT_EQ(joined("<>", {{1, slice(0, 3)}}), "<" + content_.substr(0, 3) + ">");
}

}  // namespace
}  // namespace lds
