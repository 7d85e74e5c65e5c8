// send_queue.h: one connection's replies waiting for its client to read them, in order: text, and
// slices of files that sendfile(2) sends straight from the page cache to the socket.
//
// The queue never blocks on the socket (it sends with MSG_DONTWAIT, and sendfile on a
// non-blocking socket), and sends at most kFileChunk bytes of a file per call, so that one client
// reading fast from a large slice does not keep a loop from its other connections. A read of a
// file not in the page cache does wait for the disk, inside the call, as Kafka's network threads
// wait in FileChannel.transferTo; LogManager leaves only cached slices to it (in_page_cache), so
// that wait comes only from pages evicted since.
//
// sendfile(2) to a socket whose peer has gone raises SIGPIPE: the sending thread must block or
// ignore it (StreamServer's loop blocks it for itself).
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <vector>

#include "io/file_slice.h"

namespace lds {

class SendQueue {
 public:
  // Bytes of a file sent by one sendfile call at most.
  static constexpr size_t kFileChunk = size_t{1} << 20;

  // Queues `text` with `splices` put in (FileSplice::at within `text`, in order).
  void push(std::string text, std::vector<FileSplice> splices = {});

  // Bytes queued and not yet sent.
  size_t pending() const noexcept { return pending_; }
  bool empty() const noexcept { return pending_ == 0; }

  enum class Sent {
    kAll,         // nothing left
    kBlocked,     // the socket takes no more for now
    kPeerGone,    // the socket failed: the client is gone
    kFileFailed,  // a file could not be read to the slice's end; `failure` says why
  };
  // Sends what the socket takes. After kPeerGone or kFileFailed the reply under way cannot be
  // finished: the caller closes the connection.
  Sent send_to(int socket);

  // After kFileFailed: "<path> ended at byte N, inside the M bytes to send from byte P", or
  // "cannot read <path>: <error>".
  const std::string& failure() const noexcept { return failure_; }

  // Drops everything queued, closing the files it held.
  void clear();

 private:
  struct Part {
    std::string text;  // a text part, or empty for a file's
    FileSlice file;    // a file part when file.file is set
  };
  void push_text(std::string text);

  std::deque<Part> parts_;
  size_t front_sent_ = 0;  // bytes of parts_.front() already sent
  size_t pending_ = 0;
  std::string failure_;
};

}  // namespace lds
