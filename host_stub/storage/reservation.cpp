// reservation.cpp: Reservation's give-backs, checked against what was reserved.
#include "storage/reservation.h"

#include <cassert>
#include <utility>

#include "storage/storage_logger.h"

namespace lds {
namespace {

void report_unbalanced(const std::string& owner, const char* what, uint64_t asked, uint64_t held) {
  storage_logger()->error(
      "Unbalanced reservation on {}: {} takes back {} bytes but only {} are reserved; "
      "taking back {}.",
      owner, what, asked, held, held);
  assert(false && "a reservation took back more bytes than were reserved");
}

}  // namespace

void ReservedBytes::take_back(uint64_t bytes) noexcept {
  if (bytes > bytes_) {
    report_unbalanced(owner_, "the directory", bytes, bytes_);
    bytes = bytes_;
  }
  bytes_ -= bytes;
}

Reservation::Reservation(ReservedBytes& on, uint64_t bytes) noexcept : on_(&on), bytes_(bytes) {
  on.add(bytes);
}

Reservation::Reservation(Reservation&& other) noexcept
    : on_(std::exchange(other.on_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

Reservation& Reservation::operator=(Reservation&& other) noexcept {
  if (this != &other) {
    release();
    on_ = std::exchange(other.on_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void Reservation::update(uint64_t written) noexcept {
  if (written > bytes_) {
    report_unbalanced(on_ != nullptr ? on_->owner_ : "no directory", "a write", written, bytes_);
    written = bytes_;
  }
  if (written == 0) return;
  bytes_ -= written;
  on_->take_back(written);
}

void Reservation::resize(uint64_t bytes) noexcept {
  assert(on_ != nullptr || bytes == 0);
  if (bytes > bytes_) {
    on_->add(bytes - bytes_);
  } else if (bytes < bytes_) {
    on_->take_back(bytes_ - bytes);
  }
  bytes_ = bytes;
}

void Reservation::release() noexcept {
  if (on_ != nullptr && bytes_ > 0) on_->take_back(bytes_);
  bytes_ = 0;
}

}  // namespace lds
