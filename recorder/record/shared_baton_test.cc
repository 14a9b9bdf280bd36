// The baton hands turns over first come, first served, and a member that
// leaves gives its turn up.
#include "recorder/record/shared_baton.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace slsdbg::recorder {
namespace {

TEST(SharedBaton, AWaiterGetsTheTurnBeforeTheHolderAsksAgain) {
  SharedBaton b;
  b.join(1);
  b.join(2);
  b.acquire(1);
  std::atomic<bool> two_has_it{false};
  std::thread t([&] {
    b.acquire(2);
    two_has_it = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    b.release(2);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // 2 waits now
  EXPECT_FALSE(two_has_it);
  b.release(1);
  b.acquire(1);  // behind 2
  EXPECT_TRUE(two_has_it);
  EXPECT_TRUE(b.holds(1));
  t.join();
  EXPECT_EQ(b.handovers(), 2u);
}

TEST(SharedBaton, LeavingGivesTheTurnUp) {
  SharedBaton b;
  b.join(1);
  b.join(2);
  b.acquire(1);
  std::thread t([&] { b.acquire(2); });
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  b.leave(1);
  t.join();
  EXPECT_TRUE(b.holds(2));
  EXPECT_EQ(b.participants(), 1u);
  b.release(1);  // not the holder: nothing happens
  EXPECT_TRUE(b.holds(2));
}

}  // namespace
}  // namespace slsdbg::recorder
