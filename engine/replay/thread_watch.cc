#include "engine/replay/thread_watch.h"

#include <string>

#include "engine/replay/thread_debug_registers.h"

namespace slsdbg::replay {

namespace {

DrKind dr_kind(WatchKind kind) { return kind == WatchKind::Write ? DrKind::Write : DrKind::Access; }  // x86 has no read-only

}  // namespace

Status arm_thread_watches(pid_t tid, const std::vector<WatchRange>& ranges) {
  if (ranges.size() > kMaxThreadWatches)
    return Error::msg("at most " + std::to_string(kMaxThreadWatches) + " watched pieces at once in a recording with threads");
  DebugRegisters& d = thread_debug_registers(tid);
  d.release_all(DrUse::Watch);
  for (const WatchRange& r : ranges) {
    Result<int> slot = d.claim(DrUse::Watch, r.addr, dr_kind(r.kind), r.len);
    if (!slot.ok()) {
      d.release_all(DrUse::Watch);
      (void)d.apply(tid);
      return slot.error().context("thread " + std::to_string(tid));
    }
  }
  TRY_CTX(d.apply(tid), "arming watchpoints in thread " + std::to_string(tid));
  return DebugRegisters::clear_dr6(tid);
}

// Slots are claimed lowest first in the ranges' order, so the n-th watch
// slot holds ranges[n].
Result<unsigned> take_fired_watches(pid_t tid) {
  const DebugRegisters& d = thread_debug_registers(tid);
  const unsigned long dr6 = TRY(DebugRegisters::read_dr6(tid));
  unsigned fired = 0;
  unsigned index = 0;
  for (int i = 0; i < DebugRegisters::kSlots; i++) {
    if (d.slot(i).use != DrUse::Watch) continue;
    if (dr6 & (1ul << i)) fired |= 1u << index;
    index++;
  }
  if (fired) TRY(DebugRegisters::clear_dr6(tid));
  return fired;
}

}  // namespace slsdbg::replay
