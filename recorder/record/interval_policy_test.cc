#include "recorder/record/interval_policy.h"

#include <gtest/gtest.h>

namespace slsdbg::recorder {
namespace {

constexpr uint64_t kMs = 1'000'000;

// xz's match finder: thousands of pages per tick, half of them written again.
TEST(IntervalPolicy, StretchesUpToTheBoundWhileWritesRepeat) {
  IntervalPolicy p(10 * kMs, 250 * kMs);
  const uint64_t expect[] = {20, 40, 80, 160, 250, 250};
  for (uint64_t e : expect) EXPECT_EQ(p.on_tick_checkpoint({2 * kMs, 3000, 1500}), e * kMs);
  EXPECT_EQ(p.longest_ns(), 250 * kMs);
  EXPECT_EQ(p.stretched_ticks(), 6u);
}

// The 1 GiB heap of bench/record (b): 1024 random pages per tick, almost
// none written twice. A longer interval would catch as many: no stretch.
TEST(IntervalPolicy, FreshWritesKeepTheBaseInterval) {
  IntervalPolicy p(10 * kMs, 250 * kMs);
  for (int i = 0; i < 20; i++) EXPECT_EQ(p.on_tick_checkpoint({500'000, 1024, 4}), 10 * kMs);
  EXPECT_EQ(p.stretched_ticks(), 0u);
  EXPECT_EQ(p.longest_ns(), 10 * kMs);
}

// A slow stop on a loaded machine with a few pages written again (a CPU
// loop's stack) is no reason to stretch.
TEST(IntervalPolicy, FewRewrittenPagesNeverStretch) {
  IntervalPolicy p(10 * kMs, 250 * kMs);
  for (int i = 0; i < 5; i++) EXPECT_EQ(p.on_tick_checkpoint({30 * kMs, 40, 40}), 10 * kMs);
}

TEST(IntervalPolicy, ShrinksBackWhenCheckpointsGetCheap) {
  IntervalPolicy p(10 * kMs, 80 * kMs);
  for (int i = 0; i < 4; i++) p.on_tick_checkpoint({2 * kMs, 1300, 600});
  EXPECT_EQ(p.interval_ns(), 80 * kMs);
  // Within the hysteresis band (budget/4 .. budget of 80 ms = 1 .. 4 ms): stays.
  EXPECT_EQ(p.on_tick_checkpoint({500'000, 300, 200}), 80 * kMs);
  // Writes that stop repeating: halves at each checkpoint, down to the base.
  const uint64_t expect[] = {40, 20, 10, 10};
  for (uint64_t e : expect) EXPECT_EQ(p.on_tick_checkpoint({100'000, 10, 10}), e * kMs);
  EXPECT_EQ(p.stretched_ticks(), 7u);
}

TEST(IntervalPolicy, ABoundBelowTheBaseMeansNoStretch) {
  IntervalPolicy p(10 * kMs, 5 * kMs);
  EXPECT_EQ(p.max_ns(), 10 * kMs);
  EXPECT_EQ(p.on_tick_checkpoint({2 * kMs, 1300, 600}), 10 * kMs);
}

}  // namespace
}  // namespace slsdbg::recorder
