// The one owner of a replayed thread's debug registers (DR0-DR3, DR6, DR7).
// Hardware traps have four slots and several users: the Timeline's
// watchpoints and its count/target probes (where the tracee cannot count
// them, timeline_counting.cc), the session's checkpoint breakpoint (the
// fallback when the perf/BPF conditional breakpoint is refused), and the
// watchpoint that runs a rep string instruction toward a checkpoint. Each
// claims a slot here instead of owning a register number by convention; a
// claim when all four are taken is refused with the holders named. The
// kernel's perf breakpoints (conditional_breakpoint.h) take slots from the
// same four without appearing in DR7: the kernel then refuses DR7 with
// ENOSPC, and apply() says so.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <string>

#include "common/result.h"

namespace slsdbg::replay {

// ThreadTarget: a threaded replay's breakpoint that brings one thread to its
// next checkpoint (thread_reach.h).
enum class DrUse { Free, Watch, CountProbe, TargetProbe, CheckpointBreakpoint, RepStringWatch, ThreadTarget };
enum class DrKind { Execute, Write, Access };  // x86 has no read-only data breakpoint

struct DrSlot {
  DrUse use = DrUse::Free;
  uint64_t addr = 0;
  DrKind kind = DrKind::Execute;
  uint64_t len = 1;       // 1, 2, 4 or 8 (execute: 1)
  bool enabled = true;    // false: kept, but off in DR7 (a probe lifted for one step)
};

class DebugRegisters {
 public:
  static constexpr int kSlots = 4;

  // A free slot for `use` (the lowest), or an error naming every holder.
  Result<int> claim(DrUse use, uint64_t addr, DrKind kind, uint64_t len);
  void release(int slot);
  // For a short run of the session's own (a rep string toward a
  // checkpoint): a free slot, else the observer's first watchpoint or probe
  // slot, taken over until give_back() puts its holder back.
  struct Borrowed {
    int slot = -1;
    DrSlot saved;
  };
  Result<Borrowed> borrow(DrUse use, uint64_t addr, DrKind kind, uint64_t len);
  void give_back(const Borrowed& b);
  void release_all(DrUse use);
  // The slot `use` holds at addr (-1: none).
  int find(DrUse use, uint64_t addr) const;
  const DrSlot& slot(int i) const { return slots_[static_cast<size_t>(i)]; }
  void set_enabled(int i, bool on) { slots_[static_cast<size_t>(i)].enabled = on; }
  int free_slots() const;
  bool holds(DrUse use) const;  // a slot is claimed for `use`
  bool holds(DrUse use, DrKind kind) const;  // ... of that kind

  // Writes DR0-DR3 and DR7 of `tid` from the table.
  Status apply(pid_t tid);
  // DR6, cleared when any trap bit is set (B0-B3, BS).
  static Result<unsigned long> take_dr6(pid_t tid);
  // DR6 as it is, and cleared (for a reader that takes only its own bits).
  static Result<unsigned long> read_dr6(pid_t tid);
  static Status clear_dr6(pid_t tid);

  static const char* name(DrUse use);
  // "DR0: watchpoint 0x404028 (8 bytes, write), DR1: free, ..."
  std::string describe() const;

 private:
  unsigned long dr7() const;
  std::array<DrSlot, kSlots> slots_{};
};

}  // namespace slsdbg::replay
