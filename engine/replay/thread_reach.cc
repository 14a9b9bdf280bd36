#include "engine/replay/thread_reach.h"

#include <cstddef>
#include <cstdlib>
#include <string>

#include "common/log.h"
#include "engine/replay/replay_helpers.h"
#include "engine/replay/replay_session.h"
#include "process/debug_regs.h"

namespace slsdbg::replay {

namespace {

#ifndef TRAP_PERF
constexpr int TRAP_PERF = 6;  // si_code of a perf sigtrap (asm-generic/siginfo.h)
#endif
constexpr uint64_t kRF = 0x10000;

Status set_dr3(pid_t tid, uint64_t addr, bool on) {
  if (on) TRY(process::write_debug_register(tid, 3, addr));
  return process::write_debug_register(tid, 7, on ? 1ul << 6 : 0ul);
}

// The jump at pc itself (not from an anchor before it: patch_site.h), as
// thread_check was measured with.
Result<PatchSite> site_at(process::Task& task, uint64_t pc) {
  uint8_t code[32] = {};
  TRY(task.read_memory(RemoteAddr(pc), code));
  return PatchSite::at(pc, TRY(patch_length(code, pc)));
}

}  // namespace

Result<ThreadTarget> ThreadTarget::arm(process::Task& task, const user_regs_struct& target, Via first) {
  ThreadTarget t(target, task.raw_tid());
  {
    uint8_t code[16] = {};
    if (task.read_memory(RemoteAddr(target.rip), code).ok()) t.rep_ = decode_rep_store(code);
  }
  if (t.rep_) {
    // Neither the patch nor the perf breakpoint stops part way through
    // the instruction: DR3 at its start, the rest in on_sigtrap.
    TRY(set_dr3(task.raw_tid(), target.rip, true));
    t.dr3_ = true;
    // Standing in that instruction already (the checkpoint cut it), with
    // the RF a cut rep string leaves set: cleared, DR3 fires at once.
    user_regs_struct now = TRY(task.regs());
    if (now.rip == target.rip && (now.eflags & kRF)) {
      now.eflags &= ~kRF;
      TRY(task.set_regs(now));
    }
    return t;
  }
  const char* mode = std::getenv("SLSDBG_REPLAY_PATCH");
  const bool no_patch = mode && (std::string(mode) == "off" || std::string(mode) == "refuse");
  if (!no_patch && first == Via::Patch) {
    // Standing inside the bytes the jump would replace (a tick inside a
    // loop): patch at the next arrival at pc, found by DR3 (one #DB).
    uint8_t code[32] = {};
    const user_regs_struct now = TRY(task.regs());
    Result<uint64_t> length = task.read_memory(RemoteAddr(target.rip), code).ok()
                                  ? patch_length(code, target.rip)
                                  : Result<uint64_t>(Error::msg("unreadable code"));
    if (length.ok() && now.rip > target.rip && now.rip < target.rip + *length) {
      TRY(set_dr3(task.raw_tid(), target.rip, true));
      t.dr3_ = t.patch_deferred_ = true;
      t.via_ = Via::Patch;
      return t;
    }
    Result<PatchSite> site = site_at(task, target.rip);
    Result<PatchedBreakpoint> patch = site.ok() ? PatchedBreakpoint::install(task, *site, target, PatchCompare::All)
                                                : Result<PatchedBreakpoint>(site.error());
    if (patch.ok()) {
      t.patch_.emplace(std::move(*patch));
      t.via_ = Via::Patch;
      return t;
    }
    SLSDBG_DEBUG("replay", "thread %d: no patched breakpoint at %s: %s", task.raw_tid(), hex(target.rip).c_str(),
                 patch.error().message.c_str());
  }
  if (first == Via::DebugRegister) {
    // Last resort, exact but a #DB per visit.
  } else if (auto armed = ConditionalBreakpoint::arm(task.raw_tid(), target, ConditionalBreakpoint::Compare::All);
             armed.ok()) {
    t.conditional_.emplace(std::move(*armed));
    t.via_ = Via::Conditional;
    return t;
  }
  TRY(set_dr3(task.raw_tid(), target.rip, true));
  t.dr3_ = true;
  return t;
}

Result<ThreadTarget::Trap> ThreadTarget::on_sigtrap(process::Task& task, const siginfo_t& si) {
  user_regs_struct r = TRY(task.regs());
  const bool patched_hit = patch_ && si.si_code == SI_KERNEL && r.rip == patch_->resume_addr();
  if (!patched_hit && si.si_code != TRAP_PERF && si.si_code != TRAP_HWBKPT) return Trap::NotOurs;
  if (patched_hit) r.rip = target_.rip;  // the trampoline compared all but fs/gs base and flags
  if (rep_ && r.rip == target_.rip && !same_general_registers(r, target_, nullptr, RegsAt::Anywhere))
    if (std::optional<uint64_t> n = iterations_between(*rep_, r, target_)) {
      SLSDBG_DEBUG("replay", "thread %d: %llu iterations of the rep string instruction at %s run by replay", tid_,
                   static_cast<unsigned long long>(*n), hex(r.rip).c_str());
      TRY(run_iterations(task, *rep_, r, *n));
      r = TRY(task.regs());
    }
  // A miss leaves rip where it is: past the int3, the displaced code runs on.
  if (r.rip != target_.rip || !same_general_registers(r, target_, nullptr, RegsAt::Anywhere)) {
    if (patch_deferred_ && si.si_code == TRAP_HWBKPT && r.rip == target_.rip) {
      // At pc now, outside the displaced bytes: the patch goes in.
      TRY(set_dr3(tid_, 0, false));
      dr3_ = patch_deferred_ = false;
      patch_.emplace(TRY(PatchedBreakpoint::install(task, TRY(site_at(task, target_.rip)), target_, PatchCompare::All)));
    }
    return Trap::Miss;
  }
  r.eflags &= ~kRF;  // a #DB hit set RF; the recorded state has it clear
  TRY(task.set_regs(r));
  return Trap::Match;
}

Status ThreadTarget::go_on(process::Task& task) {
  user_regs_struct r = TRY(task.regs());
  if (patch_) {
    r.rip = patch_->resume_addr();  // past the int3, into the displaced code
  } else {
    r.eflags |= kRF;  // not the same breakpoint again at once
  }
  return task.set_regs(r);
}

Status ThreadTarget::disarm(process::Task& task) {
  conditional_.reset();
  if (dr3_) TRY(set_dr3(task.raw_tid(), 0, false));
  dr3_ = false;
  if (!patch_) return ok_status();
  user_regs_struct r = TRY(task.regs());
  if (r.rip == patch_->resume_addr()) {  // left at the int3 (an error path): back to the pc
    r.rip = target_.rip;
    TRY(task.set_regs(r));
  }
  Status st = patch_->remove(task);
  patch_.reset();
  return st;
}

}  // namespace slsdbg::replay
