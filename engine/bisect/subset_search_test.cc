// Checks the group-testing search --cmd refinement uses to learn which changed
// words a command's verdict depends on, over pure predicates: it finds a
// 1-word and a 2-word dependency among thousands of candidates within its
// stated probe bound, finds an "either word" dependency's single word, says
// "none" when no subset flips the verdict, stops at max_size, never asks the
// empty set, and stops on a probe error.
#include "engine/bisect/subset_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace slsdbg::bisect {
namespace {

// Bad when the subset holds every index of `needs` (a monotone predicate).
struct NeedsAll {
  std::set<size_t> needs;
  size_t calls = 0;
  bool asked_empty = false;
  SubsetProbe fn() {
    return [this](const std::vector<size_t>& s) -> Result<bool> {
      calls++;
      asked_empty = asked_empty || s.empty();
      EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
      for (size_t i : needs)
        if (!std::binary_search(s.begin(), s.end(), i)) return false;
      return true;
    };
  }
};

TEST(SubsetSearch, FindsOneWordAmongMany) {
  for (size_t n : {1u, 2u, 3u, 17u, 4096u}) {
    for (size_t w : {size_t{0}, n / 2, n - 1}) {
      NeedsAll p{{w}};
      auto r = find_flipping_subset(n, 2, p.fn());
      ASSERT_TRUE(r.ok());
      EXPECT_EQ(r->outcome, SubsetOutcome::Found) << n << " " << w;
      EXPECT_EQ(r->subset, std::vector<size_t>{w});
      EXPECT_EQ(r->probes, p.calls);
      EXPECT_LE(r->probes, subset_search_bound(n, 1)) << n << " " << w;
      EXPECT_FALSE(p.asked_empty);
    }
  }
  // 4096 candidates, one word: the full set, 12 prefixes, the word alone, no trim.
  EXPECT_EQ(subset_search_bound(4096, 1), 1u + 13u + 1u);
  NeedsAll one{{1234}};
  auto r = find_flipping_subset(4096, 2, one.fn());
  ASSERT_TRUE(r.ok());
  EXPECT_LE(r->probes, 1u + 12u + 1u);
}

TEST(SubsetSearch, FindsTwoWordsAmongMany) {
  for (auto [a, b] : {std::pair<size_t, size_t>{0, 1}, {5, 4000}, {2047, 2048}, {4094, 4095}}) {
    NeedsAll p{{a, b}};
    auto r = find_flipping_subset(4096, 2, p.fn());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->outcome, SubsetOutcome::Found) << a << " " << b;
    EXPECT_EQ(r->subset, (std::vector<size_t>{a, b}));
    EXPECT_LE(r->probes, subset_search_bound(4096, 2)) << a << " " << b;
    EXPECT_FALSE(p.asked_empty);
  }
}

TEST(SubsetSearch, NoneWhenNothingFlips) {
  // The verdict depends on something that is not a candidate.
  SubsetProbe never = [](const std::vector<size_t>&) -> Result<bool> { return false; };
  auto r = find_flipping_subset(4096, 2, never);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outcome, SubsetOutcome::None);
  EXPECT_TRUE(r->subset.empty());
  EXPECT_EQ(r->probes, 1u);  // the full set only
  r = find_flipping_subset(0, 2, never);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outcome, SubsetOutcome::None);
  EXPECT_EQ(r->probes, 0u);
}

TEST(SubsetSearch, TooManyWordsStopsEarly) {
  NeedsAll p{{10, 200, 3000}};
  auto r = find_flipping_subset(4096, 2, p.fn());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outcome, SubsetOutcome::TooMany);
  EXPECT_EQ(r->subset, (std::vector<size_t>{10, 200, 3000}));
  EXPECT_LE(r->probes, subset_search_bound(4096, 3));
  // With room for three it finds them.
  NeedsAll q{{10, 200, 3000}};
  r = find_flipping_subset(4096, 3, q.fn());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outcome, SubsetOutcome::Found);
  EXPECT_EQ(r->subset, (std::vector<size_t>{10, 200, 3000}));
}

TEST(SubsetSearch, EitherOfTwoWordsGivesOne) {
  // Bad when 7 or 900 is patched: one of them is enough.
  SubsetProbe either = [](const std::vector<size_t>& s) -> Result<bool> {
    return std::binary_search(s.begin(), s.end(), 7u) || std::binary_search(s.begin(), s.end(), 900u);
  };
  auto r = find_flipping_subset(1000, 2, either);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outcome, SubsetOutcome::Found);
  ASSERT_EQ(r->subset.size(), 1u);
  EXPECT_TRUE(r->subset[0] == 7u || r->subset[0] == 900u);
}

TEST(SubsetSearch, NotMonotoneStillEndsOneMinimal) {
  // Bad with {1, 6}, and with 1 alone, but not with 0 and 1 together: every
  // prefix holding 1 holds 0, so growing takes 6 first, then 1; the final
  // pass sees that 1 alone is bad and drops 6.
  SubsetProbe odd = [](const std::vector<size_t>& s) -> Result<bool> {
    auto has = [&](size_t i) { return std::binary_search(s.begin(), s.end(), i); };
    return (has(1) && has(6)) || (has(1) && s.size() == 1);
  };
  auto r = find_flipping_subset(10, 2, odd);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->outcome, SubsetOutcome::Found);
  EXPECT_EQ(r->subset, std::vector<size_t>{1});
  EXPECT_LE(r->probes, subset_search_bound(10, 2));
}

TEST(SubsetSearch, ProbeErrorStopsTheSearch) {
  size_t calls = 0;
  SubsetProbe failing = [&](const std::vector<size_t>&) -> Result<bool> {
    if (++calls == 3) return Error::msg("cannot tell");
    return true;
  };
  auto r = find_flipping_subset(100, 2, failing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "cannot tell");
  EXPECT_EQ(calls, 3u);
}

}  // namespace
}  // namespace slsdbg::bisect
