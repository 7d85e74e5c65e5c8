// reservation.h: bytes held on a log directory for data not written yet, one owner each.
#pragma once

#include <cstdint>
#include <string>

namespace lds {

// A log directory's reserved bytes, which strategies see as lds_dir.reserved_bytes: the sum of the
// Reservations held against it. Only a Reservation changes it, so the sum cannot drift. Not
// synchronised: its owner reads it and changes its Reservations under one lock (LogManager's state
// lock), which placement takes anyway, so a locked instruction per change would buy nothing.
class ReservedBytes {
 public:
  // `owner` names the directory in the log line of an unbalanced give-back.
  explicit ReservedBytes(std::string owner) : owner_(std::move(owner)) {}
  ReservedBytes(const ReservedBytes&) = delete;
  ReservedBytes& operator=(const ReservedBytes&) = delete;

  uint64_t bytes() const noexcept { return bytes_; }

 private:
  friend class Reservation;
  void add(uint64_t bytes) noexcept { bytes_ += bytes; }
  // Never below zero: a give-back larger than the sum is reported and clamped.
  void take_back(uint64_t bytes) noexcept;

  uint64_t bytes_ = 0;
  std::string owner_;
};

// Bytes reserved on one directory (ClickHouse's IReservation): added to its ReservedBytes when
// made, given back when released or destroyed. Taking back more than is held is a bookkeeping bug,
// never a disk condition: a debug build stops on an assertion, a release build logs an error and
// clamps at zero, because a count wrapped around to 2^64 would make every strategy see a full disk.
// Guarded by the same lock as its ReservedBytes.
class Reservation {
 public:
  Reservation() noexcept = default;  // holds nothing
  Reservation(ReservedBytes& on, uint64_t bytes) noexcept;
  ~Reservation() { release(); }
  Reservation(Reservation&& other) noexcept;
  Reservation& operator=(Reservation&& other) noexcept;
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;

  uint64_t bytes() const noexcept { return bytes_; }

  // `written` bytes of the reserved space have been written: the reservation shrinks by as much.
  void update(uint64_t written) noexcept;
  // The space needed changed to `bytes` (a move whose source grew while it was copied).
  void resize(uint64_t bytes) noexcept;
  // Gives everything back now; the reservation then holds nothing.
  void release() noexcept;

 private:
  ReservedBytes* on_ = nullptr;
  uint64_t bytes_ = 0;
};

}  // namespace lds
