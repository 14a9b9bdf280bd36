#include "engine/replay/thread_reach.h"

#include <cerrno>
#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>

#include "common/log.h"
#include "engine/replay/patch_site.h"
#include "engine/replay/relay_site.h"
#include "engine/replay/replay_helpers.h"
#include "engine/replay/replay_session.h"
#include "engine/replay/task_code_reader.h"
#include "engine/replay/thread_debug_registers.h"
#include "engine/replay/trap_router.h"
#include "process/x86_insn.h"

namespace slsdbg::replay {

namespace {

#ifndef TRAP_PERF
constexpr int TRAP_PERF = 6;  // si_code of a perf sigtrap (asm-generic/siginfo.h)
#endif

// The execution breakpoint at addr, in a slot of the thread's owner
// (thread_debug_registers.h), beside its watchpoints; off: released. A
// claim left by an earlier target of the same tid (a run abandoned on an
// error) is released first.
Status set_debug_register(pid_t tid, uint64_t addr, bool on) {
  DebugRegisters& d = thread_debug_registers(tid);
  d.release_all(DrUse::ThreadTarget);
  if (on) {
    const int slot = TRY_CTX(d.claim(DrUse::ThreadTarget, addr, DrKind::Execute, 1),
                             "the checkpoint breakpoint of thread " + std::to_string(tid));
    Status st = d.apply(tid);
    if (!st.ok()) d.release(slot);
    return st;
  }
  Status st = d.apply(tid);
  if (!st.ok() && st.error().errno_value == ESRCH) return ok_status();  // the thread is gone
  return st;
}

// Where the jump watching pc goes (relay_site.h): inside pc's own
// instruction where it can (plan_one_instruction_site) (a goroutine resuming at a pc
// saved before the patch went in ran the tail of a jump covering two
// instructions, #16); else at pc when no branch enters the bytes it
// covers, else at an anchor before pc or through a relay. A tick in a -O0
// loop often stops right before the loop's condition, which the loop's
// `jmp` enters: a jump at pc there made the branch run its int3 tail.
Result<PatchSite> site_for(process::Task& task, uint64_t pc) {
  return plan_thread_checkpoint_site(pc, task_code_reader(task));
}

// Whether a thread at `rip` stands inside the bytes the site's jump
// replaces (then it would resume into the jump's tail).
bool inside_site(const PatchSite& site, uint64_t rip) {
  return rip > site.anchor && rip < site.end() && !(site.anchored() && rip == site.pc);
}

}  // namespace

ThreadTarget::ThreadTarget(ThreadTarget&& o) noexcept
    : target_(o.target_),
      tid_(o.tid_),
      via_(o.via_),
      patch_(std::move(o.patch_)),
      site_(o.site_),
      mem_checks_(std::move(o.mem_checks_)),
      paused_(o.paused_),
      allowed_(std::move(o.allowed_)),
      reads_allowed_(std::move(o.reads_allowed_)),
      range_(o.range_),
      conditional_(std::move(o.conditional_)),
      dr_(std::exchange(o.dr_, false)),
      patch_deferred_(o.patch_deferred_),
      rep_(std::move(o.rep_)) {}

ThreadTarget::~ThreadTarget() {
  if (dr_) thread_debug_registers(tid_).release_all(DrUse::ThreadTarget);
}

Result<ThreadTarget> ThreadTarget::arm(process::Task& task, const user_regs_struct& target, Via first,
                                       const PatchAllowed& allowed, const ReadAllowed& reads) {
  ThreadTarget t(target, task.raw_tid());
  t.reads_allowed_ = reads;
  {
    uint8_t code[16] = {};
    if (task.read_memory(RemoteAddr(target.rip), code).ok()) t.rep_ = decode_rep_store(code);
  }
  if (t.rep_) {
    // Neither the patch nor the perf breakpoint stops part way through
    // the instruction: a debug register at its start, the rest in on_sigtrap.
    TRY(set_debug_register(task.raw_tid(), target.rip, true));
    t.dr_ = true;
    // Standing in that instruction already (the checkpoint cut it), with
    // the RF a cut rep string leaves set: cleared, the breakpoint fires at once.
    user_regs_struct now = TRY(task.regs());
    if (now.rip == target.rip && (now.eflags & process::kEflagsRf)) {
      now.eflags &= ~process::kEflagsRf;
      TRY(task.set_regs(now));
    }
    return t;
  }
  const char* mode = std::getenv("SLSDBG_REPLAY_PATCH");
  const bool no_patch = mode && (std::string(mode) == "off" || std::string(mode) == "refuse");
  if (!no_patch && (first == Via::Patch || (first == Via::Conditional && allowed))) {
    // Standing inside the bytes the jump would replace (a tick inside a
    // loop): patch at the next arrival at pc, found by a debug register (one #DB).
    const user_regs_struct now = TRY(task.regs());
    Result<PatchSite> site = site_for(task, target.rip);
    const auto take = [&](const PatchSite& s) {
      t.allowed_ = allowed;
      t.range_ = {s.anchor, s.end()};
      t.relay_range_ = {s.relay, s.relay ? s.relay + kJmpLen : 0};
      return !allowed || t.patch_allowed();
    };
    if (site.ok() && !take(*site)) {
      // A debugger's int3 in the bytes after pc (a breakpoint on the line
      // after a loop whose condition the tick stopped at): an anchor before
      // pc keeps clear of it, where one exists. The perf breakpoint left
      // otherwise is throttled in a hot loop and runs past the match.
      Result<PatchSite> anchored = plan_anchored_site(target.rip, task_code_reader(task));
      if (anchored.ok() && take(*anchored)) site = *anchored;
      else site = Error::msg("the debugger's breakpoints or steps are in the way");
    }
    if (site.ok())
      SLSDBG_DEBUG("replay", "thread %d at %s: patch site %s..%s%s", task.raw_tid(), hex(now.rip).c_str(), hex(site->anchor).c_str(),
                   hex(site->end()).c_str(), inside_site(*site, now.rip) ? " (inside: deferred)" : "");
    if (site.ok() && inside_site(*site, now.rip)) {
      t.site_ = *site;
      TRY(set_debug_register(task.raw_tid(), target.rip, true));
      t.dr_ = t.patch_deferred_ = true;
      t.via_ = Via::Patch;
      return t;
    }
    Result<PatchedBreakpoint> patch = site.ok() ? PatchedBreakpoint::install(task, *site, target, PatchCompare::All)
                                                : Result<PatchedBreakpoint>(site.error());
    if (patch.ok()) {
      t.patch_.emplace(std::move(*patch));
      t.site_ = *site;
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
  TRY(set_debug_register(task.raw_tid(), target.rip, true));
  t.dr_ = true;
  return t;
}

Result<ThreadTarget::Trap> ThreadTarget::on_sigtrap(process::Task& task, const siginfo_t& si) {
  user_regs_struct r = TRY(task.regs());
  const bool patched_hit = patch_ && si.si_code == SI_KERNEL && r.rip == patch_->resume_addr();
  // A #DB whose DR6 named no cause comes as an icebp (TRAP_BRKPT), no
  // handler run (trap_router.cc): at pc, the hit of our execute breakpoint.
  // Not after a `syscall`: a single step over one reports TRAP_BRKPT too.
  const bool causeless_hit = si.si_code == TRAP_BRKPT && r.rip == target_.rip && (conditional_ || dr_) &&
                             !after_syscall_insn(r.rip, task_code_reader(task));
  if (!patched_hit && !causeless_hit && si.si_code != TRAP_PERF && si.si_code != TRAP_HWBKPT) return Trap::NotOurs;
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
      TRY(set_debug_register(tid_, 0, false));
      dr_ = patch_deferred_ = false;
      site_ = TRY(site_for(task, target_.rip));
      patch_.emplace(TRY(PatchedBreakpoint::install(task, *site_, target_, PatchCompare::All)));
    }
    return Trap::Miss;
  }
  r.eflags &= ~process::kEflagsRf;  // a #DB hit set RF; the recorded state has it clear
  TRY(task.set_regs(r));
  return Trap::Match;
}

Status ThreadTarget::refit(process::Task& task, const MemCheck& word) {
  // A read or access watch on the word would fire in the trampoline's
  // comparison: such visits keep their trap.
  const bool readable = !reads_allowed_ || reads_allowed_(word.addr, 8);
  if (patch_deferred_) {
    // The deferred patch's first arrival matched the registers, not the
    // memory (a spin loop whose registers repeat): the thread stands at pc,
    // outside the displaced bytes, so the patch goes in now, comparing the
    // word too. Before, it went in only after a miss of the registers, and
    // such a loop took the debug register's #DB at every visit (a threaded
    // replay --check of thr_sleep_beside_spin cond ran for 15 minutes).
    TRY(set_debug_register(tid_, 0, false));
    dr_ = patch_deferred_ = false;
    site_ = TRY(site_for(task, target_.rip));
    if (readable) mem_checks_.push_back(word);
    patch_.emplace(TRY(PatchedBreakpoint::install(task, *site_, target_, PatchCompare::All, mem_checks_)));
    SLSDBG_DEBUG("replay", "thread %d: the deferred patch goes in at a visit whose memory differs", tid_);
    return ok_status();
  }
  if (!patch_ || !site_ || mem_checks_.size() >= kMaxMemChecks) return ok_status();
  if (!readable) return ok_status();
  for (const MemCheck& m : mem_checks_)
    if (m.addr == word.addr) return ok_status();
  user_regs_struct r = TRY(task.regs());
  r.rip = target_.rip;  // back from the int3 to pc, outside the moved bytes
  TRY(task.set_regs(r));
  TRY(patch_->remove(task));
  patch_.reset();
  mem_checks_.push_back(word);
  Result<PatchedBreakpoint> patch = PatchedBreakpoint::install(task, *site_, target_, PatchCompare::All, mem_checks_);
  if (!patch.ok()) {
    SLSDBG_DEBUG("replay", "thread %d: the patch with %zu memory words did not go in: %s", tid_, mem_checks_.size(),
                 patch.error().message.c_str());
    TRY(set_debug_register(tid_, target_.rip, true));
    dr_ = true;
    via_ = Via::DebugRegister;
    return ok_status();
  }
  SLSDBG_DEBUG("replay", "thread %d: the patch compares %zu memory word(s) too (last %s)", tid_, mem_checks_.size(),
               hex(word.addr).c_str());
  patch_.emplace(std::move(*patch));
  return ok_status();
}

// Out while the debugger steps or watches (the perf breakpoint, else a
// debug register, stands in), in again once it no longer does.
Status ThreadTarget::follow_debugger(process::Task& task) {
  if (!allowed_ || !site_) return ok_status();
  const bool allowed = patch_allowed();
  if (!allowed && (patch_ || patch_deferred_)) {
    if (patch_) TRY(patch_->remove(task));
    patch_.reset();
    patch_deferred_ = false;
    if (dr_) TRY(set_debug_register(tid_, 0, false));
    dr_ = false;
    paused_ = true;
    Result<ConditionalBreakpoint> armed = ConditionalBreakpoint::arm(tid_, target_, ConditionalBreakpoint::Compare::All);
    if (!armed.ok()) {
      TRY(set_debug_register(tid_, target_.rip, true));
      dr_ = true;
      return ok_status();
    }
    conditional_.emplace(std::move(*armed));
    return ok_status();
  }
  if (!allowed || !paused_) return ok_status();
  const user_regs_struct now = TRY(task.regs());
  if (inside_site(*site_, now.rip)) return ok_status();  // at a later trap
  conditional_.reset();
  if (dr_) TRY(set_debug_register(tid_, 0, false));
  dr_ = false;
  paused_ = false;
  patch_.emplace(TRY(PatchedBreakpoint::install(task, *site_, target_, PatchCompare::All, mem_checks_)));
  return ok_status();
}

Status ThreadTarget::go_on(process::Task& task) {
  user_regs_struct r = TRY(task.regs());
  if (patch_) {
    r.rip = patch_->resume_addr();  // past the int3, into the displaced code
  } else {
    r.eflags |= process::kEflagsRf;  // not the same breakpoint again at once
  }
  return task.set_regs(r);
}

Status ThreadTarget::disarm(process::Task& task) {
  conditional_.reset();
  if (dr_) TRY(set_debug_register(task.raw_tid(), 0, false));
  dr_ = false;
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
