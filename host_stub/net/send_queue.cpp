// send_queue.cpp: text by send(2), file slices by sendfile(2), in the order they were queued.
#include "net/send_queue.h"

#include <sys/sendfile.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace lds {

void SendQueue::push_text(std::string text) {
  if (text.empty()) return;
  pending_ += text.size();
  // Replies in a row share one text part, so that one send carries them all; what was sent of
  // it goes first, so the part holds unsent bytes only.
  if (!parts_.empty() && !parts_.back().file.file) {
    Part& back = parts_.back();
    if (parts_.size() == 1 && front_sent_ > 0) {
      back.text.erase(0, front_sent_);
      front_sent_ = 0;
    }
    back.text += text;
    return;
  }
  parts_.push_back(Part{std::move(text), {}});
}

void SendQueue::push(std::string text, std::vector<FileSplice> splices) {
  if (splices.empty()) {
    push_text(std::move(text));
    return;
  }
  size_t from = 0;
  for (FileSplice& s : splices) {
    push_text(text.substr(from, s.at - from));
    from = s.at;
    if (s.slice.length == 0) continue;
    pending_ += s.slice.length;
    parts_.push_back(Part{{}, std::move(s.slice)});
  }
  push_text(text.substr(from));
}

SendQueue::Sent SendQueue::send_to(int socket) {
  while (!parts_.empty()) {
    Part& part = parts_.front();
    ssize_t n = 0;
    size_t size = 0;
    if (!part.file.file) {
      size = part.text.size();
      n = ::send(socket, part.text.data() + front_sent_, size - front_sent_,
                 MSG_DONTWAIT | MSG_NOSIGNAL);
    } else {
      size = part.file.length;
      auto at = static_cast<off_t>(part.file.position + front_sent_);
      n = ::sendfile(socket, part.file.file->get(), &at, std::min(size - front_sent_, kFileChunk));
      if (n == 0) {
        // The file ends before the slice does: it was cut short since it was read.
        failure_ = part.file.file->path().string() + " ended at byte " + std::to_string(at) +
                   ", inside the " + std::to_string(size) + " bytes to send from byte " +
                   std::to_string(part.file.position);
        return Sent::kFileFailed;
      }
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != EPIPE &&
          errno != ECONNRESET && errno != ENOTCONN) {
        // Anything but the socket's own troubles is the file's (EIO from its disk).
        failure_ = "cannot read " + part.file.file->path().string() + ": " + std::strerror(errno);
        return Sent::kFileFailed;
      }
    }
    if (n > 0) {
      front_sent_ += static_cast<size_t>(n);
      pending_ -= static_cast<size_t>(n);
      if (front_sent_ == size) {
        parts_.pop_front();
        front_sent_ = 0;
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Sent::kBlocked;
    return Sent::kPeerGone;
  }
  return Sent::kAll;
}

void SendQueue::clear() {
  parts_.clear();
  front_sent_ = 0;
  pending_ = 0;
}

}  // namespace lds
