#include "engine/bisect/subset_search.h"

#include <algorithm>

namespace slsdbg::bisect {
namespace {

std::vector<size_t> join(const std::vector<size_t>& set, const std::vector<size_t>& candidates, size_t prefix) {
  std::vector<size_t> out = set;
  out.insert(out.end(), candidates.begin(), candidates.begin() + static_cast<long>(prefix));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

size_t subset_search_bound(size_t n, size_t k) {
  size_t log = 0;
  while ((size_t{1} << log) < n) log++;
  return 1 + k * (log + 1) + k * k;
}

Result<SubsetSearch> find_flipping_subset(size_t n, size_t max_size, const SubsetProbe& probe) {
  SubsetSearch r;
  auto ask = [&](const std::vector<size_t>& subset) -> Result<bool> {
    r.probes++;
    return probe(subset);
  };
  std::vector<size_t> candidates(n);
  for (size_t i = 0; i < n; i++) candidates[i] = i;
  if (n == 0 || !TRY(ask(candidates))) {
    r.outcome = SubsetOutcome::None;
    return r;
  }
  // Known: set ∪ candidates is bad, set alone is good.
  std::vector<size_t> set;
  for (;;) {
    size_t good = 0, bad = candidates.size();  // prefix lengths
    while (bad - good > 1) {
      size_t mid = good + (bad - good) / 2;
      if (TRY(ask(join(set, candidates, mid)))) bad = mid; else good = mid;
    }
    set.push_back(candidates[bad - 1]);
    std::sort(set.begin(), set.end());
    candidates.resize(bad - 1);
    if (set.size() > max_size) {
      r.outcome = SubsetOutcome::TooMany;
      r.subset = set;
      return r;
    }
    // With no candidates left before it, set ∪ (prefix bad-1 = nothing) was the bad probe.
    if (candidates.empty() || TRY(ask(set))) break;
  }
  // 1-minimal: drop members whose removal keeps the verdict bad.
  for (bool dropped = true; dropped && set.size() > 1;) {
    dropped = false;
    for (size_t i = 0; i < set.size() && set.size() > 1; i++) {
      std::vector<size_t> without = set;
      without.erase(without.begin() + static_cast<long>(i));
      if (TRY(ask(without))) {
        set = std::move(without);
        dropped = true;
        break;
      }
    }
  }
  r.outcome = SubsetOutcome::Found;
  r.subset = set;
  return r;
}

}  // namespace slsdbg::bisect
