#include "recorder/record/interval_policy.h"

#include <algorithm>

namespace slsdbg::recorder {

uint64_t IntervalPolicy::on_tick_checkpoint(const CheckpointCost& c) {
  const uint64_t cost = c.stop_ns + c.pages * kPageCostNs;
  const bool repeating = c.rewritten >= kMinRewritten && c.rewritten * 4 >= c.pages;
  const bool costly = cost * 100 > interval_ns_ * kBudgetPercent;
  if (costly && repeating) {
    interval_ns_ = std::min(interval_ns_ * 2, max_ns_);
  } else if (!repeating || cost * 100 * 4 < interval_ns_ * kBudgetPercent) {
    // Hysteresis: between a quarter of the budget and the budget, stay.
    interval_ns_ = std::max(interval_ns_ / 2, base_ns_);
  }
  if (interval_ns_ > base_ns_) stretched_ticks_++;
  longest_ns_ = std::max(longest_ns_, interval_ns_);
  return interval_ns_;
}

}  // namespace slsdbg::recorder
