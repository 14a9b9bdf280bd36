// Companion counts: pcs counted in the tracee beside a run's own probes
// (timeline_impl.h). A run from a checkpoint to a moment deep in a
// CPU-bound segment is the expensive part of a reverse step (it replays the
// segment up to there and keeps copies on the way); a move that needs
// another pc's count can start from a kept copy only if the copy knows
// that count. A reverse-next over a call makes three such moves (the
// callee's `ret`, GDB's reverse-continue to the callee's entry, the call
// before the entry), so the first one counts the entry and the call too.
//
// Exactness: a companion's count is used only when its stub was in place
// for the whole window (from the window's start or a copy that knew it);
// whenever it cannot be placed at a resumption it is not known for the rest
// of the window. The moments found this way are checked as before (one step
// to the position in verified_before; the reverse continue's landing is
// reached by count and is the breakpoint's arrival).
#include "common/log.h"
#include "engine/replay/timeline_impl.h"

namespace slsdbg::replay {

void Timeline::Impl::set_companions(std::set<uint64_t> pcs) {
  if (pcs == companions) return;
  if (session) (void)drop_counter();  // the old ones' stubs out; placed again as wanted
  companions = std::move(pcs);
  // Not counted since this window began.
  companion_valid.clear();
  companion_count.clear();
}

void Timeline::Impl::companions_out() {
  if (companions.empty() || !session || counters.empty()) return;
  if (Status st = drop_counter(); !st.ok())
    SLSDBG_DEBUG("timeline", "companion stubs out: %s", st.error().message.c_str());
}

void Timeline::Impl::drop_companion(uint64_t pc, const char* why) {
  if (companion_valid.erase(pc))
    SLSDBG_DEBUG("timeline", "companion count at %s unknown in this window: %s", hex_addr(pc).c_str(), why);
}

std::optional<Moment> Timeline::Impl::last_hit_by_companions(const Moment& c) {
  if (user.breakpoints.empty() || !user.watches.empty() || !counting_allowed() || companion_valid.empty()) return std::nullopt;
  if (!session || segment != c.checkpoint || cursor != c.event || pc_now() != c.pc || at_exit || at_end ||
      !fold_counter().ok())
    return std::nullopt;
  // Every breakpoint's arrivals in this window: a companion's, or an int3's
  // that has counted since the window began (GDB's others: ld.so's).
  std::optional<Moment> last;
  for (uint64_t bp : user.breakpoints) {
    uint64_t n = 0;
    if (companion_valid.count(bp)) {
      n = companion_count[bp];
      if (bp == c.pc && n > 0) n--;  // the current arrival is not before c
    } else if (bp_valid.count(bp) && bp != c.pc) {
      n = bp_count[bp];
    } else {
      return std::nullopt;
    }
    if (n == 0) continue;
    if (last) return std::nullopt;  // two ran in this window: which last is not known
    last = Moment{c.checkpoint, c.event, bp, n};
  }
  return last;  // none: an earlier window, scanned
}

}  // namespace slsdbg::replay
