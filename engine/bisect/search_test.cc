// Checks the checkpoint search on its own: it finds the boundary of any
// monotone good/bad sequence within ceil(log2 K) search probes, spends one
// edge probe only when the boundary touches an edge, reports "already bad"
// and "never bad", notices a non-monotone sequence with spot checks, and
// stops on a probe error.
#include "engine/bisect/search.h"

#include <gtest/gtest.h>

#include <cmath>

namespace slsdbg::bisect {
namespace {

struct Sequence {
  std::vector<bool> good;
  size_t calls = 0;
  ProbeFn fn() {
    return [this](size_t i, ProbeKind) -> Result<Evaluation> {
      calls++;
      return Evaluation{good.at(i) ? Verdict::Good : Verdict::Bad, ""};
    };
  }
};

Sequence flip_at(size_t n, size_t first_bad) {
  Sequence s;
  for (size_t i = 0; i < n; i++) s.good.push_back(i < first_bad);
  return s;
}

size_t ceil_log2(size_t n) { return static_cast<size_t>(std::ceil(std::log2(static_cast<double>(n)))); }

TEST(BisectSearch, FindsEveryBoundaryWithinTheBound) {
  for (size_t n : {2u, 3u, 5u, 17u, 100u, 313u}) {
    for (size_t b = 1; b < n; b++) {
      Sequence s = flip_at(n, b);
      auto r = search_positions(0, n - 1, 0, s.fn());
      ASSERT_TRUE(r.ok());
      EXPECT_EQ(r->outcome, Outcome::Found) << n << " " << b;
      EXPECT_EQ(r->last_good, b - 1);
      EXPECT_EQ(r->first_bad, b);
      EXPECT_LE(r->count(ProbeKind::Search), ceil_log2(n)) << n << " " << b;
      // Two checkpoints leave nothing to search: both are edges.
      size_t edges = n == 2 ? 2u : (b == 1 || b == n - 1) ? 1u : 0u;
      EXPECT_LE(r->count(ProbeKind::Endpoint), edges) << n << " " << b;
      EXPECT_EQ(s.calls, r->probes.size());
    }
  }
}

TEST(BisectSearch, AlreadyBadAndNeverBad) {
  Sequence all_bad = flip_at(50, 0);
  auto r = search_positions(0, 49, 2, all_bad.fn());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outcome, Outcome::AlreadyBad);
  EXPECT_EQ(r->last_good, 0u);

  Sequence all_good = flip_at(50, 50);
  r = search_positions(0, 49, 2, all_good.fn());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outcome, Outcome::NeverBad);
  EXPECT_EQ(r->first_bad, 49u);
}

TEST(BisectSearch, SubRangeIsRespected) {
  Sequence s = flip_at(100, 70);
  auto r = search_positions(60, 80, 0, s.fn());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->first_bad, 70u);
  for (const auto& p : r->probes) {
    EXPECT_GE(p.index, 60u);
    EXPECT_LE(p.index, 80u);
  }
}

TEST(BisectSearch, SpotChecksNoticeAFlipBack) {
  // good for the first third, bad for the second, good again for the last.
  Sequence s;
  for (size_t i = 0; i < 300; i++) s.good.push_back(i < 100 || i >= 200);
  auto r = search_positions(0, 299, 2, s.fn());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outcome, Outcome::NotMonotone);
  EXPECT_FALSE(s.good[r->witness_bad]);
  EXPECT_TRUE(s.good[r->witness_good]);
  EXPECT_LT(r->witness_bad, r->witness_good);
  EXPECT_GE(r->count(ProbeKind::SpotCheck), 1u);
}

TEST(BisectSearch, SpotChecksStayQuietOnAMonotoneSequence) {
  Sequence s = flip_at(300, 123);
  auto r = search_positions(0, 299, 4, s.fn());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outcome, Outcome::Found);
  EXPECT_EQ(r->count(ProbeKind::SpotCheck), 4u);
  EXPECT_EQ(r->first_bad, 123u);
}

TEST(BisectSearch, ProbeErrorStopsTheSearch) {
  ProbeFn failing = [](size_t, ProbeKind) -> Result<Evaluation> { return Error::msg("cannot tell"); };
  auto r = search_positions(0, 9, 2, failing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "cannot tell");
}

}  // namespace
}  // namespace slsdbg::bisect
