#include "recorder/record/defer_policy.h"

#include <gtest/gtest.h>

namespace slsdbg::recorder {
namespace {

// Ticks served in the stop before deferring is tried again.
int in_stop_ticks(DeferPolicy& p) {
  int n = 0;
  while (!p.defer_next_tick()) n++;
  return n;
}

TEST(DeferPolicy, DefersUntilATear) {
  DeferPolicy p;
  for (int i = 0; i < 10; i++) EXPECT_TRUE(p.defer_next_tick());
  EXPECT_EQ(p.torn(), 0u);
}

TEST(DeferPolicy, BacksOffExponentiallyWhileDeferralsTear) {
  DeferPolicy p;
  const int expect[] = {1, 2, 4, 8, 16, 32, 64, 64, 64};
  for (int e : expect) {
    p.on_torn();
    EXPECT_EQ(in_stop_ticks(p), e);
  }
  EXPECT_EQ(p.torn(), 9u);
  EXPECT_EQ(p.backed_off_ticks(), 1u + 2 + 4 + 8 + 16 + 32 + 64 * 3);
}

TEST(DeferPolicy, RecoversWhenDeferralsHold) {
  DeferPolicy p;
  for (int i = 0; i < 5; i++) {
    p.on_torn();
    in_stop_ticks(p);
  }
  EXPECT_EQ(p.backoff(), 16u);
  // Each held deferral halves the back-off: four of them, and a new tear
  // costs 2 ticks in the stop, not 32.
  for (int i = 0; i < 4; i++) {
    EXPECT_TRUE(p.defer_next_tick());
    p.on_held();
  }
  EXPECT_EQ(p.backoff(), 1u);
  p.on_torn();
  EXPECT_EQ(in_stop_ticks(p), 2);
  p.on_held();
  p.on_held();
  p.on_torn();
  EXPECT_EQ(in_stop_ticks(p), 1);
}

// A stretched interval copies in the stop, and does not use up the back-off:
// the ticks after it still wait their turn in the stop.
TEST(DeferPolicy, AStretchedIntervalCopiesInTheStop) {
  DeferPolicy p;
  for (int i = 0; i < 3; i++) EXPECT_FALSE(p.defer_next_tick(true));
  EXPECT_EQ(p.stretched_in_stop_ticks(), 3u);
  EXPECT_EQ(p.backed_off_ticks(), 0u);
  EXPECT_TRUE(p.defer_next_tick(false));
  p.on_torn();
  EXPECT_FALSE(p.defer_next_tick(true));
  EXPECT_EQ(in_stop_ticks(p), 1);
}

}  // namespace
}  // namespace slsdbg::recorder
