// Which of n candidates a verdict depends on, asking only the verdict: the
// group-testing search --cmd refinement uses to learn which changed words of
// memory make a shell command say "bad" (cmd_discover.h), apart from memory.
//
// The caller's predicate says whether a subset of the candidates, applied to
// a known-good base, makes the verdict bad. The empty subset is taken as good
// without asking (the base is the last good checkpoint, already judged). The
// search asks the full set first (none flips it: Outcome::None), then grows
// a set S one candidate per round: a binary search over the prefixes of the
// remaining candidates finds the shortest prefix P with S ∪ P bad (S alone is
// good), whose last candidate joins S; the others of P stay candidates for the
// next round. It ends when S alone is bad, then drops any member whose
// removal keeps S bad, so S is 1-minimal even when the predicate is not
// monotone. Cost for n candidates and |S| = k:
//   at most 1 + k * (ceil(log2 n) + 1) + k * k probes
// (in practice 1 + k * ceil(log2 n) + k), against ddmin's O(k log n) with a
// larger constant; a delta-debugging search cannot do much better when a
// probe costs a core file and a command.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "common/result.h"

namespace slsdbg::bisect {

enum class SubsetOutcome {
  Found,    // `subset` alone makes the verdict bad, and no member can be dropped
  None,     // even all candidates together leave it good
  TooMany,  // it needs more than max_size candidates (`subset`: the first max_size + 1 found)
};

struct SubsetSearch {
  SubsetOutcome outcome = SubsetOutcome::None;
  std::vector<size_t> subset;  // candidate indices, ascending
  size_t probes = 0;
};

// true = bad (the subset flips the verdict). An error stops the search.
using SubsetProbe = std::function<Result<bool>(const std::vector<size_t>& subset)>;

// Candidates are 0..n-1; the subsets given to `probe` are ascending.
Result<SubsetSearch> find_flipping_subset(size_t n, size_t max_size, const SubsetProbe& probe);

// The worst-case probe count above, for n candidates and a k-member answer.
size_t subset_search_bound(size_t n, size_t k);

}  // namespace slsdbg::bisect
