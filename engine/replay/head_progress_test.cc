// progress_candidates / confirm_progress: which value says how far an
// unpatched head got.
#include "engine/replay/head_progress.h"

#include <gtest/gtest.h>

#include <vector>

namespace slsdbg::replay {
namespace {

constexpr uint64_t kMax = 1ull << 32;

TEST(HeadProgress, CounterAgreeingWithCpuTime) {
  // A loop index from 1000 to 11000, at 7000 after 60% of the CPU time: 0.6 of the way.
  const std::vector<uint64_t> start{5, 1000}, now{9, 7000}, target{3, 11000};
  const auto c = progress_candidates(start, now, target, 0.6, kMax);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].index, 1u);
  EXPECT_DOUBLE_EQ(c[0].fraction, 0.6);
}

TEST(HeadProgress, FallingValuesAndPointers) {
  const std::vector<uint64_t> start{100000, 0x7f0000000000}, now{40000, 0x7f0000000000 + 16 * 5500},
      target{0, 0x7f0000000000 + 16 * 10000};
  const auto c = progress_candidates(start, now, target, 0.6, kMax);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_DOUBLE_EQ(c[0].fraction, 0.6);
  EXPECT_DOUBLE_EQ(c[1].fraction, 0.55);
}

TEST(HeadProgress, RefusesWhatCannotBeCounted) {
  // A hash (too far), a value past its target, one that went back, one that
  // barely moves, and a counter disagreeing with the CPU time.
  const std::vector<uint64_t> start{0x1234567890abcdef, 10, 5000, 7, 0}, now{0x5234567890abcdef, 30000, 4000, 8, 95000},
      target{0x9234567890abcdef, 20000, 9000, 9, 100000};
  EXPECT_TRUE(progress_candidates(start, now, target, 0.6, kMax).empty());
}

TEST(HeadProgress, WrapsAround) {
  const std::vector<uint64_t> start{static_cast<uint64_t>(-3000)}, now{static_cast<uint64_t>(-3000) + 3000},
      target{2000};
  const auto c = progress_candidates(start, now, target, 0.6, kMax);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_DOUBLE_EQ(c[0].fraction, 0.6);
  EXPECT_DOUBLE_EQ(progress_fraction(start[0], 1999, target[0]), 4999.0 / 5000.0);
  EXPECT_GE(progress_fraction(start[0], 2000, target[0]), 1.0);
}

TEST(HeadProgress, ProbeKeepsSteadyValues) {
  // After 6 ms at 0.6, a probe of 1 ms: the index (steady, 0.1 more) is
  // kept; a temporary that happened to lie between (jumped to 0.95) and one
  // that stood still are not.
  const std::vector<uint64_t> start{1000, 0, 500}, target{11000, 10000, 10500};
  const std::vector<uint64_t> first{7000, 6000, 6500}, probe{8000, 9500, 6500};
  const auto c = progress_candidates(start, first, target, 0.6, kMax);
  ASSERT_EQ(c.size(), 3u);
  const auto g = confirm_progress(c, start, probe, target, 6'000'000, 1'000'000);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->index, 0u);
  EXPECT_DOUBLE_EQ(g->fraction, 0.7);
  // Past its target after the probe: refused.
  const std::vector<uint64_t> past{11000, 9500, 6500};
  EXPECT_FALSE(confirm_progress(c, start, past, target, 6'000'000, 1'000'000));
}

}  // namespace
}  // namespace slsdbg::replay
