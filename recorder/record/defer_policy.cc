#include "recorder/record/defer_policy.h"

#include <algorithm>

namespace slsdbg::recorder {

bool DeferPolicy::defer_next_tick(bool interval_stretched) {
  if (interval_stretched) {
    stretched_in_stop_++;
    return false;
  }
  if (remaining_ == 0) return true;
  remaining_--;
  backed_off_ticks_++;
  return false;
}

void DeferPolicy::on_torn() {
  torn_++;
  backoff_ = backoff_ == 0 ? 1 : std::min(backoff_ * 2, kMaxBackoff);
  remaining_ = backoff_;
}

void DeferPolicy::on_held() { backoff_ /= 2; }

}  // namespace slsdbg::recorder
