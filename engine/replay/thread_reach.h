// Bringing one thread of a threaded `replay --check` to a recorded position
// (thread_check.cc's last stretch of a segment: the running thread to
// checkpoint k+1's registers). The same machinery as the single-threaded
// replay, cheapest first: the patched breakpoint (patched_breakpoint.h: the
// registers are compared in the tracee, a visit costs nanoseconds), else the
// conditional breakpoint (a perf breakpoint whose BPF program compares; the
// kernel throttles it in a hot loop, past perf_event_max_sample_rate hits a
// second, and then misses the one that matches), else a debug register
// (claimed from the thread's owner, thread_debug_registers.h) at every visit.
// Only this thread runs while it is armed (the others stay stopped), so one
// trampoline serves the whole address space. A run that fails with one way
// is replayed again from its checkpoint with the next (thread_check.cc): a
// branch into the bytes the patch moved runs garbage, a throttled perf
// breakpoint runs past the match. A target inside a rep string instruction
// (rep_store.h) is reached through a debug register at the instruction's start, and the
// iterations up to the target are performed by replay.
#pragma once

#include <signal.h>
#include <sys/user.h>

#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "common/fd.h"
#include "common/result.h"
#include "engine/replay/conditional_breakpoint.h"
#include "engine/replay/patched_breakpoint.h"
#include "engine/replay/rep_store.h"
#include "process/task.h"

namespace slsdbg::replay {

class ThreadTarget {
 public:
  enum class Via { Patch, Conditional, DebugRegister };
  // Asked whether a patch may replace [begin, end) (a debugger's replay).
  using PatchAllowed = std::function<bool(uint64_t begin, uint64_t end)>;
  // Asked whether the patch may read [addr, addr + len) of the program's
  // memory (a word a refitted patch compares): no read or access watch there.
  using ReadAllowed = std::function<bool(uint64_t addr, uint64_t len)>;
  // `task` is stopped, not inside a call. `first`: the cheapest way to try.
  // SLSDBG_REPLAY_PATCH=off or =refuse skips the patch (tests of the fallbacks).
  // With `allowed`, a first of Conditional tries the patch first where allowed.
  static Result<ThreadTarget> arm(process::Task& task, const user_regs_struct& target, Via first,
                                  const PatchAllowed& allowed = {}, const ReadAllowed& reads = {});
  ThreadTarget(ThreadTarget&& o) noexcept;
  // Gives back a debug register still claimed (a run that ended in a
  // divergence): a later restore re-creates the same tid, and its owner's
  // table must not hand the old breakpoint to the new thread.
  ~ThreadTarget();

  // A SIGTRAP of the thread: Match leaves it at target.rip with the
  // target's registers (a candidate: memory is checked by the caller).
  enum class Trap { NotOurs, Miss, Match };
  Result<Trap> on_sigtrap(process::Task& task, const siginfo_t& si);
  // After a Match the caller found different memory at: goes on as if the
  // visit had not matched.
  Status go_on(process::Task& task);
  // After such a visit: the patch also compares `word` (at most
  // kMaxMemChecks), so visits it tells apart run on without a trap. The
  // thread stands at the match; go_on follows. A patch that does not go in
  // again leaves a debug register.
  Status refit(process::Task& task, const MemCheck& word);
  // Whether this SIGTRAP (regs: the thread's now) is the patch's int3.
  bool owns_trap(const user_regs_struct& regs, const siginfo_t& si) const {
    if (patch_deferred_) return si.si_code == TRAP_HWBKPT && regs.rip == target_.rip;
    return patch_ && si.si_code == SI_KERNEL && regs.rip == patch_->resume_addr();
  }
  bool patched() const { return patch_.has_value(); }
  // Where the program stands for a thread at `rip` in the patch's
  // trampoline (PatchedBreakpoint::program_pc); nullopt elsewhere.
  std::optional<uint64_t> program_pc(uint64_t rip) const {
    return patch_ ? patch_->program_pc(rip) : std::nullopt;
  }
  // After a trap the debugger handled: the patch comes out while arm's
  // `allowed` refuses its bytes (a step, a watch, an int3 there), the perf
  // breakpoint (else a debug register) standing in, and goes in again once
  // allowed. The thread stands in the program's code.
  Status follow_debugger(process::Task& task);
  // Shows the original code in bytes read from the process at addr.
  void hide(uint64_t addr, std::span<uint8_t> bytes) const {
    if (patch_) patch_->hide(addr, bytes);
  }
  // Takes the patch and the debug register out (also on error paths).
  Status disarm(process::Task& task);
  Via via() const { return via_; }

 private:
  ThreadTarget(const user_regs_struct& target, pid_t tid) : target_(target), tid_(tid) {}
  user_regs_struct target_;
  pid_t tid_;
  Via via_ = Via::DebugRegister;
  std::optional<PatchedBreakpoint> patch_;
  std::optional<PatchSite> site_;    // where patch_ went
  std::vector<MemCheck> mem_checks_;  // the words patch_ compares too
  bool paused_ = false;  // the patch is out for the debugger (follow_debugger)
  PatchAllowed allowed_;
  ReadAllowed reads_allowed_;
  // The bytes the patch replaces: at pc, and a relay's in the padding (each
  // asked on its own: what lies between them is not touched).
  std::pair<uint64_t, uint64_t> range_{0, 0}, relay_range_{0, 0};
  bool patch_allowed() const {
    return allowed_(range_.first, range_.second) && (!relay_range_.second || allowed_(relay_range_.first, relay_range_.second)) &&
           words_readable();
  }
  bool words_readable() const {
    if (!reads_allowed_) return true;
    for (const MemCheck& m : mem_checks_)
      if (!reads_allowed_(m.addr, 8)) return false;
    return true;
  }
  std::optional<ConditionalBreakpoint> conditional_;
  bool dr_ = false;              // its debug register is claimed
  bool patch_deferred_ = false;  // the debug register first: the thread stood inside the displaced bytes
  std::optional<RepStore> rep_;  // the target's pc is a rep string instruction
};

}  // namespace slsdbg::replay
