// A trap of the observer's (a user breakpoint, say) while the patch is in.
// It may be shown only if it comes before the checkpoint, and a trampoline
// that missed the checkpoint would have run past it unnoticed. Going back
// to the rescue copy keeps that safe but finishes the segment with a trap
// per visit of the checkpoint's pc (12 s for one 10 ms segment of
// revstep_far). Instead, a copy of the tracee forked at the trap runs on
// with the patch, the observer's int3s put back as it meets them, to the
// trampoline's match with checkpoint k+1's memory (or its CPU budget): one
// forward run of the rest of the segment. Once proven, every later trap of
// this run before the match also comes first (replay is deterministic), so
// the patch only steps aside while the observer holds the stop.
#include <unistd.h>

#include <algorithm>

#include "common/log.h"
#include "engine/replay/segment_run.h"
#include "engine/replay/tracee_fork.h"
#include "process/task_clock.h"

namespace slsdbg::replay {

namespace {

constexpr uint8_t kInt3 = 0xcc;
constexpr uint64_t kMinProofBudgetNs = 20'000'000;

// Kills the probe copy on every return.
struct ProbeCopy {
  process::Task task;
  ~ProbeCopy() { task.kill_and_reap(); }
};

}  // namespace

Result<bool> ReplaySession::SegmentRun::trap_before_checkpoint(const siginfo_t& si, const user_regs_struct& r) {
  if (proof_ == TrampolineProof::Unknown) {
    Result<bool> tried = prove_trampoline(si, r);
    if (!tried.ok())  // the copy failed somehow: the rescue copy is still safe
      SLSDBG_DEBUG("replay", "segment %llu: no proof: %s", (unsigned long long)seg_.value, tried.error().message.c_str());
    const bool proven = tried.ok() && *tried;
    proof_ = proven ? TrampolineProof::Proven : TrampolineProof::Refused;
    SLSDBG_DEBUG("replay", "segment %llu: the patched run %s checkpoint %llu after the observer's trap",
                 (unsigned long long)seg_.value, proven ? "reaches" : "was not seen to reach",
                 (unsigned long long)seg_.value + 1);
  }
  return proof_ == TrampolineProof::Proven;
}

Result<bool> ReplaySession::SegmentRun::prove_trampoline(const siginfo_t& si, const user_regs_struct& r) {
  PatchedArrival* p = armed<PatchedArrival>();
  if (!p || !s_.observer_) return false;
  Result<bool> shared = has_shared_writable_mapping(task_.tgid());
  if (!shared.ok() || *shared) return false;  // the copy would write into the original's memory
  user_regs_struct start = r;
  start.orig_rax = static_cast<uint64_t>(-1);  // a SIGTRAP stop, not a syscall
  const uint64_t mask = TRY(task_.signal_mask());
  Result<process::Task> copy = fork_tracee(task_, start, mask);
  if (!copy.ok()) {
    SLSDBG_DEBUG("replay", "no copy to prove the patched run with: %s", copy.error().message.c_str());
    return false;
  }
  ProbeCopy probe{std::move(*copy)};
  process::Task& t = probe.task;
  uint64_t used = 0;  // the patched run's CPU time so far
  if (::read(p->budget.get(), &used, sizeof used) != static_cast<ssize_t>(sizeof used)) used = 0;
  const uint64_t left = std::max(p->budget_ns > used ? p->budget_ns - used : 0, kMinProofBudgetNs);
  Result<UniqueFd> alarm = process::arm_cpu_time_alarm(t.raw_tid(), left);
  if (!alarm.ok()) return false;
  // An int3 of the observer's at rip - 1: the original byte back, rip on it.
  // False: not one (the program's own int3, or the trampoline's).
  const auto lift_int3 = [&](user_regs_struct& regs) -> Result<bool> {
    uint8_t byte = 0;
    if (!t.read_memory(RemoteAddr(regs.rip - 1), {&byte, 1}).ok() || byte != kInt3) return false;
    uint8_t original = byte;
    s_.observer_->hide_traps(regs.rip - 1, {&original, 1});
    if (original == kInt3) return false;
    TRY(t.write_memory(RemoteAddr(regs.rip - 1), {&original, 1}));
    regs.rip -= 1;
    TRY(t.set_regs(regs));
    return true;
  };
  if (si.si_code == SI_KERNEL) {
    user_regs_struct regs = start;
    if (!TRY(lift_int3(regs))) return false;
  }
  for (;;) {
    TRY(t.cont());
    process::WaitResult w = TRY(t.wait());
    if (w.kind != process::StopKind::SignalDelivery || w.signo != SIGTRAP) return false;  // a syscall, a fault, an exit
    const siginfo_t psi = TRY(t.siginfo());
    if (process::is_cpu_time_alarm(psi)) return false;
    user_regs_struct regs = TRY(t.regs());
    if (psi.si_code == SI_KERNEL && regs.rip == p->patch.resume_addr()) {
      user_regs_struct at = regs;
      at.rip = target_.rip;
      if (!same_general_registers(at, target_, nullptr, target_at_)) continue;
      // The memory decides, read from the copy.
      if (TRY(copy_at_next_checkpoint(t))) return true;
      continue;  // rip is past the int3: the displaced code runs on
    }
    if (psi.si_code == SI_KERNEL && TRY(lift_int3(regs))) continue;
    return false;
  }
}

}  // namespace slsdbg::replay
