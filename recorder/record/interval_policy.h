#pragma once
// How long the next tick interval is. A program that rewrites the same
// memory all the time (xz's match finder, bzip2's block sort) dirties
// about as many pages in a long interval as in a short one, and every
// checkpoint costs per dirty page: a write-protect fault in the tracee,
// the copy, the store's hash and write. For such a program the recorder
// doubles the interval, up to the bound the user sees (`record
// --max-interval`, reported by `info`), while a checkpoint costs more than
// kBudgetPercent of its interval and at least a quarter of its pages were
// also written in one of the few intervals before (recorder/capture/
// write_history.h: a longer one would have caught them once; sort's merge
// passes rewrite their table only every few 10 ms intervals). It halves it again, down to `record --interval`, when
// checkpoints get cheap or the writes stop repeating. A program writing
// fresh memory (a heap being filled, random writes over a large one) gains
// nothing from a longer interval and keeps the base one.
#include <cstdint>

#include "store/summary.h"

namespace slsdbg::recorder {

struct CheckpointCost {
  uint64_t stop_ns = 0;    // the checkpoint's stop
  uint64_t pages = 0;      // dirty pages it took
  uint64_t rewritten = 0;  // ... of which the previous interval had written too
};

// Store summary keys (store/summary.h): the bound, the longest interval
// used and how many ticks were armed longer than the base one.
inline constexpr const char* kMaxIntervalSummaryKey = store::kMaxIntervalKey;
inline constexpr const char* kLongestIntervalSummaryKey = store::kLongestIntervalKey;
inline constexpr const char* kStretchedTicksSummaryKey = store::kStretchedTicksKey;

class IntervalPolicy {
 public:
  // Past the stop, what each dirty page costs the program and the other
  // CPU: its write-protect fault (~1.5 us), its copy and its store.
  static constexpr uint64_t kPageCostNs = 4000;
  static constexpr uint64_t kBudgetPercent = 5;
  // Fewer rewritten pages than this never stretch the interval, however
  // slow the stop was (a loaded machine).
  static constexpr uint64_t kMinRewritten = 64;

  IntervalPolicy(uint64_t base_ns, uint64_t max_ns) : base_ns_(base_ns), max_ns_(max_ns < base_ns ? base_ns : max_ns),
                                                      interval_ns_(base_ns) {}

  // After each tick checkpoint taken at the current interval; returns the next interval.
  uint64_t on_tick_checkpoint(const CheckpointCost& c);

  uint64_t interval_ns() const { return interval_ns_; }
  uint64_t base_ns() const { return base_ns_; }
  uint64_t max_ns() const { return max_ns_; }
  uint64_t longest_ns() const { return longest_ns_; }
  uint64_t stretched_ticks() const { return stretched_ticks_; }  // ticks armed longer than the base

 private:
  uint64_t base_ns_, max_ns_, interval_ns_;
  uint64_t longest_ns_ = 0;
  uint64_t stretched_ticks_ = 0;
};

}  // namespace slsdbg::recorder
