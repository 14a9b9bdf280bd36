#pragma once
// When a tick checkpoint may copy its cold pages after the tracee resumed.
// A deferred copy is torn when the program writes a page before its copy
// is confirmed; the tick is then dropped and retaken. A program that writes
// memory all the time (xz, a compressor's window) tears most deferrals, and
// retaking them costs more than copying in the stop would have. So after a
// torn deferral the next N tick checkpoints copy in the stop, N doubling at
// each tear (1, 2, 4 ... kMaxBackoff) and halving at each deferral that
// held: such a program settles on copying in the stop, one that tears once
// in a while keeps deferring. Since the tick after a torn one always copies
// in the stop, a gap between stored checkpoints stays below 2 intervals.
// A tick whose interval is stretched (interval_policy.h) also copies in the
// stop: the interval stretches because the program writes the same pages
// again within a few intervals, so its deferrals would tear (sort's merge
// passes tore 5 of 7 deferrals, each a wasted copy of up to 4,400 pages and
// a retake).
#include <cstdint>

namespace slsdbg::recorder {

class DeferPolicy {
 public:
  static constexpr uint32_t kMaxBackoff = 64;

  // Called once for each tick checkpoint that could be deferred otherwise:
  // false while backing off (and counts that tick as served in the stop),
  // or while the interval is stretched (the back-off waits).
  bool defer_next_tick(bool interval_stretched = false);
  void on_torn();  // a deferred copy tore
  void on_held();  // a deferred copy was exact

  uint32_t backoff() const { return backoff_; }
  uint64_t torn() const { return torn_; }
  uint64_t backed_off_ticks() const { return backed_off_ticks_; }
  uint64_t stretched_in_stop_ticks() const { return stretched_in_stop_; }

 private:
  uint32_t backoff_ = 0;    // in-stop ticks after the next tear, halved by each held one
  uint32_t remaining_ = 0;  // in-stop ticks still to go
  uint64_t torn_ = 0;
  uint64_t backed_off_ticks_ = 0;
  uint64_t stretched_in_stop_ = 0;
};

}  // namespace slsdbg::recorder
