// The dirty-page sets of the last few captures. A program that sweeps a
// working set larger than one interval's writes (sort's merge passes over
// its line table) writes different pages in consecutive intervals but the
// same ones again a few intervals later: only a history longer than one
// interval shows that a longer interval would copy them once (the adaptive
// interval, recorder/record/interval_policy.h) and that they are likely
// written again soon (so not worth a deferred copy that would tear).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace slsdbg::recorder {

class WriteHistory {
 public:
  // How many captures' sets are kept: 50 ms at the 10 ms base interval.
  static constexpr size_t kDepth = 5;

  // The pages (ascending) the tracker reported at the capture just taken.
  void push(std::vector<uint64_t> written);
  // The newest set (the previous interval's writes); empty if none.
  const std::vector<uint64_t>& newest() const;
  // Of `pages` (ascending), those found in any kept set, ascending.
  std::vector<uint64_t> also_written(const std::vector<uint64_t>& pages) const;

 private:
  std::deque<std::vector<uint64_t>> sets_;  // newest first
};

}  // namespace slsdbg::recorder
