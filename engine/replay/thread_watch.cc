#include "engine/replay/thread_watch.h"

#include <cerrno>
#include <string>

#include "process/debug_regs.h"

namespace slsdbg::replay {

namespace {

constexpr unsigned long kDr7Slot3 = (3ul << 6) | (0xful << 28);  // L3, G3, RW3, LEN3: thread_reach's

Result<unsigned long> peek_dr(pid_t tid, int i) { return process::read_debug_register(tid, i); }
Status poke_dr(pid_t tid, int i, unsigned long v) { return process::write_debug_register(tid, i, v); }

unsigned long rw_bits(WatchKind kind) { return kind == WatchKind::Write ? 1ul : 3ul; }  // x86 has no read-only
unsigned long len_bits(uint64_t len) {
  switch (len) {
    case 1: return 0;
    case 2: return 1;
    case 8: return 2;
    default: return 3;  // 4
  }
}

}  // namespace

Status arm_thread_watches(pid_t tid, const std::vector<WatchRange>& ranges) {
  if (ranges.size() > kMaxThreadWatches)
    return Error::msg("at most " + std::to_string(kMaxThreadWatches) + " watched pieces at once in a recording with threads");
  const unsigned long old = TRY(peek_dr(tid, 7));
  unsigned long dr7 = old & kDr7Slot3;
  TRY(poke_dr(tid, 7, dr7));  // off while the addresses change
  for (size_t i = 0; i < ranges.size(); i++) {
    TRY(poke_dr(tid, static_cast<int>(i), ranges[i].addr));
    dr7 |= 1ul << (2 * i);
    dr7 |= (rw_bits(ranges[i].kind) | (len_bits(ranges[i].len) << 2)) << (16 + 4 * i);
  }
  Status st = poke_dr(tid, 7, dr7);
  if (!st.ok() && st.error().errno_value == ENOSPC)
    return Error::msg("no free debug register for a watchpoint (the checkpoint breakpoint uses one of four)");
  TRY(st);
  return poke_dr(tid, 6, 0);
}

Result<unsigned> take_fired_watches(pid_t tid) {
  const unsigned long dr6 = TRY(peek_dr(tid, 6));
  const unsigned fired = static_cast<unsigned>(dr6 & 0x7);
  if (fired) TRY(poke_dr(tid, 6, 0));
  return fired;
}

}  // namespace slsdbg::replay
