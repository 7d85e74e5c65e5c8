// reservation_test.cpp: a Reservation gives back exactly what it holds, and never more.
#include "storage/reservation.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace lds {
namespace {

TEST(Reservation, GivesItsBytesBackWhenDestroyed) {
  ReservedBytes dir("/d1");
  {
    Reservation a(dir, 100);
    Reservation b(dir, 50);
    EXPECT_EQ(dir.bytes(), 150u);
  }
  EXPECT_EQ(dir.bytes(), 0u);
}

TEST(Reservation, ShrinksAsDataIsWritten) {
  ReservedBytes dir("/d1");
  Reservation r(dir, 100);
  r.update(30);
  EXPECT_EQ(r.bytes(), 70u);
  EXPECT_EQ(dir.bytes(), 70u);
  r.update(70);
  EXPECT_EQ(r.bytes(), 0u);
  EXPECT_EQ(dir.bytes(), 0u);
}

TEST(Reservation, ReleaseGivesBackOnceAndDestructionNothingMore) {
  ReservedBytes dir("/d1");
  Reservation other(dir, 7);
  {
    Reservation r(dir, 100);
    r.release();
    EXPECT_EQ(r.bytes(), 0u);
    EXPECT_EQ(dir.bytes(), 7u);
    r.release();
  }
  EXPECT_EQ(dir.bytes(), 7u);
}

TEST(Reservation, ResizeFollowsWhatIsNeeded) {
  ReservedBytes dir("/d1");
  Reservation r(dir, 100);
  r.resize(140);
  EXPECT_EQ(dir.bytes(), 140u);
  r.resize(10);
  EXPECT_EQ(dir.bytes(), 10u);
}

TEST(Reservation, MovingHandsOverTheBytesWithoutCountingThemTwice) {
  ReservedBytes d1("/d1");
  ReservedBytes d2("/d2");
  Reservation a(d1, 100);
  Reservation b(std::move(a));
  EXPECT_EQ(a.bytes(), 0u);
  EXPECT_EQ(b.bytes(), 100u);
  EXPECT_EQ(d1.bytes(), 100u);
  // Assigning over a reservation gives its own bytes back first: a move between directories.
  b = Reservation(d2, b.bytes());
  EXPECT_EQ(d1.bytes(), 0u);
  EXPECT_EQ(d2.bytes(), 100u);
  b.update(40);
  EXPECT_EQ(d2.bytes(), 60u);
}

TEST(Reservation, TakingBackMoreThanWasReservedIsCaughtNotWrappedAround) {
  ReservedBytes dir("/d1");
  Reservation other(dir, 5);
  Reservation r(dir, 10);
#ifdef NDEBUG
  testing::internal::CaptureStderr();
  r.update(25);
  const std::string logged = testing::internal::GetCapturedStderr();
  EXPECT_NE(logged.find("Unbalanced reservation on /d1: a write takes back 25 bytes but only 10 "
                        "are reserved"),
            std::string::npos)
      << logged;
  EXPECT_EQ(r.bytes(), 0u);
  EXPECT_EQ(dir.bytes(), 5u);  // the other reservation is still counted, nothing wrapped around
#else
  EXPECT_DEATH(r.update(25), "took back more bytes than were reserved");
#endif
}

}  // namespace
}  // namespace lds
