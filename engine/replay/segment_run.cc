// The loop of a segment's run (segment_run.h): start from checkpoint k,
// take the tracee's stops one by one, match syscalls, rdtsc, signals and
// the exit against the log, and end at checkpoint k+1, the end of history
// or a divergence. SIGTRAPs go to segment_run_traps.cc; the arrival at the
// checkpoint is armed by the checkpoint_arrival_*.cc files.
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "common/log.h"
#include "common/signal_name.h"
#include "engine/replay/fd_placeholders.h"
#include "engine/replay/placeholder_mmap.h"
#include "engine/replay/segment_run.h"
#include "engine/replay/sysbuf_version.h"
#include "engine/replay/syscall_policy.h"
#include "process/inject.h"
#include "process/signal_frame.h"
#include "process/syscallbuf_stub.h"
#include "process/signal_policy.h"
#include "process/x86_insn.h"

namespace slsdbg::replay {

namespace {

std::array<uint64_t, 6> syscall_args(const user_regs_struct& r) { return {r.rdi, r.rsi, r.rdx, r.r10, r.r8, r.r9}; }

bool is_synchronous(const store::Event& ev) {
  if (ev.siginfo.size() < sizeof(siginfo_t)) return false;
  siginfo_t si;
  std::memcpy(&si, ev.siginfo.data(), sizeof si);
  return process::classify_signal(si) == process::SignalTiming::Synchronous;
}

}  // namespace

// Resumption goes through the observer when there is one (it may single-step).
Status ReplaySession::SegmentRun::go(int signo) {
  TRY(after_free_run(signo));
  if (armed<HeldArrival>()) {
    if (!s_.observer_->holds_checkpoint()) TRY(release_hold(signo));
  } else {
    TRY(hold_checkpoint());
  }
  // The observer refused the patch for one resumption (a step over the
  // current instruction after a restore, a signal to deliver): ask again
  // once it would allow it, or every visit of the pc costs a #DB.
  const DebugRegisterArrival* d = armed<DebugRegisterArrival>();
  if (patch_ == PatchState::AskAgain && s_.observer_ && signo == 0 && !armed<PatchedArrival>() &&
      !(d && d->then_patch) && patch_site_ && observer_allows_site()) {
    patch_ = PatchState::Allowed;
    TRY(maybe_patch());
  }
  // A counting copy took the tracee's place at a trap met first, before
  // this resumption or while arming it (the count inside after_free_run):
  // this one runs onto that trap with nothing armed, the next one arms.
  // Advanced at the start instead, a count made inside this go() left its
  // trap's resumption with nothing armed too, and with the last watched
  // store of a segment's tail that run went past the checkpoint unarmed.
  if (free_run_ == FreeRun::Pending) free_run_ = FreeRun::Running;
  return s_.observer_ ? s_.observer_->resume(task_, signo) : task_.cont(signo);
}

// An event was consumed: the observer may pause right after it.
Result<ReplaySession::SegmentRun::Next> ReplaySession::SegmentRun::after_event(const store::Event& ev) {
  if (s_.observer_ &&
      TRY(s_.observer_->on_event_done(task_, cursor_ - 1, ev)) == RunObserver::Verdict::Pause)
    return Next::Pause;
  TRY(at_log_end());
  TRY(go());
  return Next::Resume;
}

Result<ReplaySession::SegmentRun::Next> ReplaySession::SegmentRun::resume_paused() {
  if (reenter_signal_) {
    const int signo = reenter_signal_;
    reenter_signal_ = 0;
    return on_signal(signo);
  }
  const int signo = deliver_on_resume_;
  deliver_on_resume_ = 0;
  TRY(at_log_end(signo));
  TRY(go(signo));
  return Next::Resume;
}

// The checkpoint can only be reached once the log is consumed: its arrival
// is armed then (a visit of its pc before that would cost a #DB for
// nothing, e.g. a checkpoint inside a loop that makes a syscall every 100k
// iterations). Idempotent.
Status ReplaySession::SegmentRun::at_log_end(int deliver) {
  if (log_end_armed_ || !awaits_checkpoint()) return ok_status();
  log_end_armed_ = true;
  head_allowed_ = !head_unknown_;
  Status st = maybe_patch(deliver);
  head_allowed_ = false;
  return st;
}

// The cheapest arrival the run may use now: held for the observer, else
// the patch, else a breakpoint.
Status ReplaySession::SegmentRun::maybe_patch(int deliver) {
  TRY(hold_checkpoint());
  if (armed<HeldArrival>()) return ok_status();
  if (cursor_ == events_.size() && TRY(count_before_patch(deliver))) return ok_status();
  TRY(try_patch(deliver));
  // Whatever refused the patch (the observer, the code, a failed install),
  // a consumed log keeps a breakpoint on the checkpoint: a plain continue
  // with neither armed runs past it forever.
  if (cursor_ == events_.size() && armed<NothingArmed>() && free_run_ == FreeRun::None) return reach_or_arm(deliver);
  return ok_status();
}

ReplaySession::SegmentRun::Next ReplaySession::SegmentRun::diverge(uint64_t pc, std::string expected,
                                                                   std::string actual) {
  outcome_.end = SegmentEnd::Diverged;
  outcome_.divergence = Divergence{seg_, cursor_, std::move(expected), std::move(actual), pc};
  if (armed<PatchedArrival>()) {
    SLSDBG_INFO("replay", "segment %llu: the patched breakpoint's run failed: %s", (unsigned long long)seg_.value,
                outcome_.divergence->describe().c_str());
    patch_ = PatchState::Failed;
  }
  return Next::Done;
}

Result<ReplaySession::SegmentRun::Next> ReplaySession::SegmentRun::on_seccomp() {
  user_regs_struct r = TRY(task_.regs());
  const int64_t nr = static_cast<int64_t>(r.orig_rax);
  const auto args = syscall_args(r);
  const std::string actual = "syscall " + describe_syscall(nr, args);
  const store::Event* ev = next_event();
  const SyscallHandling how = handling_of(nr, args);
  if (how == SyscallHandling::EndOfProcess && ev && ev->kind == store::EventKind::Exit) {
    if (s_.observer_ && s_.observer_->before_exit(task_, *ev) == RunObserver::Verdict::Pause) return Next::Pause;
    TRY(task_.cont());  // the real exit; its status is checked against the Exit event
    return Next::Resume;
  }
  if (!ev || ev->kind != store::EventKind::Syscall || ev->syscall_no != nr || ev->args != args)
    return diverge(r.rip, expected_here(), actual);
  cursor_++;
  outcome_.events_replayed++;
  if (how == SyscallHandling::Emulate) {
    r.orig_rax = static_cast<uint64_t>(-1);
    r.rax = static_cast<uint64_t>(ev->result);
    TRY(task_.set_regs(r));
    TRY_CTX(install_placeholders(task_, created_fds(*ev)), "replaying " + actual);
  } else {
    // The kernel chooses where a mapping goes from this process's randomized
    // mmap base, which the restored process does not share: ask for the
    // recorded place. The argument registers are put back afterwards.
    const bool pinned = pin_placement(nr, *ev, r) | map_placeholder_anonymous(task_.raw_tid(), nr, *ev, r);
    if (pinned) TRY(task_.set_regs(r));
    TRY(task_.syscall());
    process::WaitResult w = TRY(task_.wait());
    if (w.kind != process::StopKind::SyscallStop)
      return diverge(r.rip, describe_event(*ev), actual + " did not return (stopped otherwise)");
    user_regs_struct after = TRY(task_.regs());
    if (pinned) {
      after.rdi = args[0];
      after.r10 = args[3];
      after.r8 = args[4];
      TRY(task_.set_regs(after));
    }
    const int64_t result = static_cast<int64_t>(after.rax);
    if (result != ev->result) {
      if (how == SyscallHandling::RunAndCheck && !TRY(settle_changed_open(task_, nr, result, *ev))) {
        cursor_--;
        return diverge(r.rip, describe_event(*ev), actual + " = " + std::to_string(result));
      }
      after.rax = static_cast<uint64_t>(ev->result);
      TRY(task_.set_regs(after));
    }
  }
  for (const store::MemoryWrite& w : ev->writes)
    TRY_CTX(task_.write_memory(RemoteAddr(w.addr), w.bytes), "writing the logged output of " + actual);
  if (next_event() && next_event()->kind == store::EventKind::ForcedCheckpoint) {
    cursor_++;
    outcome_.end = SegmentEnd::ReachedByRestore;
    return Next::Done;
  }
  return after_event(*ev);
}

Result<ReplaySession::SegmentRun::Next> ReplaySession::SegmentRun::on_signal(int signo) {
  siginfo_t si = TRY(task_.siginfo());
  user_regs_struct r = TRY(task_.regs());
  if (signo == SIGTRAP && handed_watch_trap_ && si.si_code == SI_TKILL && si.si_pid == ::getpid()) {
    // Ours, sent to bring back a watch the counting copy met (take_copy_at_watch).
    si = *std::exchange(handed_watch_trap_, std::nullopt);
    TRY(task_.set_siginfo(si));
  }
  if (signo == SIGTRAP)
    if (std::optional<Next> n = TRY(on_sigtrap(si, r))) return *n;
  return on_logged_signal(signo, r, si);
}

// A signal no trap of ours explains: an emulated rdtsc, or the next logged signal.
Result<ReplaySession::SegmentRun::Next> ReplaySession::SegmentRun::on_logged_signal(int signo, user_regs_struct& r,
                                                                                    const siginfo_t& si) {
  const store::Event* ev = next_event();
  if (signo == SIGSEGV && si.si_code == SI_KERNEL) {
    uint8_t code[3] = {0, 0, 0};
    if (task_.read_memory(RemoteAddr(r.rip), {code, 3}).ok() && code[0] == 0x0f &&
        (code[1] == 0x31 || (code[1] == 0x01 && code[2] == 0xf9))) {
      const bool rdtscp = code[1] == 0x01;
      const std::string actual = rdtscp ? "rdtscp" : "rdtsc";
      if (!ev || ev->kind != store::EventKind::Rdtsc || ev->is_rdtscp != rdtscp)
        return diverge(r.rip, expected_here(), actual);
      r.rax = ev->tsc & 0xffffffffu;
      r.rdx = ev->tsc >> 32;
      if (rdtscp) r.rcx = ev->tsc_aux;
      r.rip += rdtscp ? 3 : 2;
      // The #GP left RF set, which would make the next instruction skip a
      // breakpoint at its address (a checkpoint right after rdtsc).
      r.eflags &= ~process::kEflagsRf;
      TRY(task_.set_regs(r));
      cursor_++;
      outcome_.events_replayed++;
      // A checkpoint right after the emulated instruction: the breakpoint
      // would not see it (the resumed #GP keeps RF), so check here.
      if (has_next_ && !next_forced_ && cursor_ == events_.size() && r.rip == target_.rip) {
        Next n = TRY(on_breakpoint(r));
        if (n == Next::Done) return n;
      }
      return after_event(*ev);
    }
  }
  if (!ev || ev->kind != store::EventKind::Signal || ev->signo != signo) {
    std::string actual = "signal " + std::to_string(signo);
    // A SIGTRAP no trap of ours claimed: say what it was and what was armed.
    if (signo == SIGTRAP)
      actual += " (si_code " + std::to_string(si.si_code) + ", " + arrival_way_name(way()) + " armed)";
    return diverge(r.rip, expected_here(), actual);
  }
  if (s_.observer_ && !signal_announced_) {
    signal_announced_ = true;
    if (s_.observer_->before_signal(task_, signo) == RunObserver::Verdict::Pause) {
      reenter_signal_ = signo;
      return Next::Pause;
    }
  }
  signal_announced_ = false;
  if (ev->siginfo.size() >= sizeof(siginfo_t)) {
    siginfo_t logged;
    std::memcpy(&logged, ev->siginfo.data(), sizeof logged);
    TRY(task_.set_siginfo(logged));
  }
  cursor_++;
  outcome_.events_replayed++;
  // Held by the recorder and delivered right after checkpoint k: the
  // recorder zeroed the frame's FPU area first (process/signal_frame.h).
  if (!is_synchronous(*ev) && std::all_of(events_.begin(), events_.begin() + static_cast<long>(cursor_),
                                          [](const store::Event& e) { return e.kind == store::EventKind::Signal; }))
    TRY_CTX(process::clear_signal_fpu_area(task_, signo), "preparing the signal frame");
  if (s_.observer_ && TRY(s_.observer_->on_event_done(task_, cursor_ - 1, *ev)) == RunObserver::Verdict::Pause) {
    deliver_on_resume_ = signo;
    return Next::Pause;
  }
  TRY(at_log_end(signo));
  TRY(go(signo));
  return Next::Resume;
}

Result<ReplaySession::SegmentRun::Next> ReplaySession::SegmentRun::on_exit(const process::WaitResult& w) {
  const store::Event* ev = next_event();
  const bool killed = w.kind == process::StopKind::Killed;
  const std::string actual = killed ? "exit (killed by " + signal_name(w.signo) + ")"
                                    : "exit with status " + std::to_string(w.exit_code);
  if (!ev || ev->kind != store::EventKind::Exit || (killed ? ev->signo != w.signo : ev->exit_status != w.exit_code))
    return diverge(0, expected_here(), actual);
  cursor_++;
  outcome_.events_replayed++;
  outcome_.end = SegmentEnd::EndOfHistory;
  return Next::Done;
}

Result<SegmentOutcome> ReplaySession::SegmentRun::run() {
  if (!started_) {
    started_ = true;
    if (TRY(begin()) == Next::Done) return outcome_;
  } else {
    outcome_ = SegmentOutcome{SegmentEnd::Diverged, std::nullopt, outcome_.events_replayed, 0};
    Next n = TRY(resume_paused());
    if (n == Next::Pause) {
      outcome_.end = SegmentEnd::Paused;
      return outcome_;
    }
    if (n == Next::Done) return finish_run();
  }
  return loop();
}

// Reads the log and the next checkpoint, then starts the tracee.
Result<ReplaySession::SegmentRun::Next> ReplaySession::SegmentRun::begin() {
  events_ = TRY_CTX(s_.reader_.segment_events(seg_), "reading segment " + std::to_string(seg_.value));
  TRY(check_sysbuf_events(s_.reader_, events_));
  const auto checkpoints = s_.reader_.checkpoints();
  has_next_ = s_.k_.value + 1 < checkpoints.size();
  if (has_next_) hint_ = checkpoints[s_.k_.value + 1].cpu_since_event_ns;
  for (const store::Event& ev : events_)
    if (ev.kind == store::EventKind::ForcedCheckpoint) next_forced_ = true;
  if (has_next_) {
    store::ProcessState next = TRY(s_.reader_.process_state(CheckpointId(s_.k_.value + 1)));
    if (next.threads.size() != 1) return Error::msg("replay of multithreaded checkpoints is not supported yet");
    target_ = next.threads[0].regs;
    dead_stack_ = dead_stack_range(next, target_.rsp);
    uint8_t code[2] = {0, 0};
    // From the recorded image: at checkpoint 0 the code may not be mapped yet.
    // The syscall buffer stub's trapped `syscall` is not in the image (the
    // injection area is not captured), but sits at a fixed address.
    const bool stub_syscall = target_.rip == process::sysbuf_stub_layout().slow;
    if ((stub_syscall || (s_.reader_.read_memory(CheckpointId(s_.k_.value + 1), target_.rip, {code, 2}).ok() &&
                          process::is_syscall_insn(code))) &&
        target_.rcx == target_.rip + 2)
      target_at_ = RegsAt::RewoundSyscall;
    uint8_t insn[15] = {};
    if (target_at_ == RegsAt::Anywhere &&
        s_.reader_.read_memory(CheckpointId(s_.k_.value + 1), target_.rip, {insn, sizeof insn}).ok() &&
        (target_rep_ = decode_rep_string(insn)))
      target_at_ = RegsAt::InsideRepString;
  }
  // The end of a recording cut short: refused or stopped (the recorder killed
  // the program right after a final checkpoint: a lone SIGKILL exit), or the
  // recorder itself killed (the log after the last checkpoint has no exit; its
  // prefix may stop anywhere, even inside an event). History ends at the
  // last complete checkpoint.
  const bool logs_exit = std::any_of(events_.begin(), events_.end(),
                                     [](const store::Event& e) { return e.kind == store::EventKind::Exit; });
  if (!has_next_ && (!logs_exit || (events_.size() == 1 && events_[0].signo == SIGKILL))) {
    outcome_.end = SegmentEnd::EndOfHistory;
    outcome_.cut_short = true;
    return Next::Done;
  }
  // A segment that opens with a forced checkpoint runs nothing: a member
  // sharing memory went on from a second checkpoint holding what the
  // others wrote while it waited (recorder/record/shared_turn.h).
  if (has_next_ && !events_.empty() && events_[0].kind == store::EventKind::ForcedCheckpoint) {
    cursor_ = 1;
    outcome_.end = SegmentEnd::ReachedByRestore;
    return Next::Done;
  }
  // A copy adopted after event start_event_ - 1 (a moment snapshot): that
  // much of the log is consumed already, its opening signals delivered.
  if (s_.start_event_ > 0) {
    cursor_ = std::min<size_t>(std::exchange(s_.start_event_, 0), events_.size());
    head_unknown_ = true;
    s_.signals_queued_by_restore_ = false;
    if (has_next_ && !next_forced_ && cursor_ == events_.size()) {  // standing on checkpoint k+1?
      user_regs_struct r = TRY(task_.regs());
      if (same_general_registers(r, target_, nullptr, target_at_ == RegsAt::InsideRepString ? RegsAt::Anywhere : target_at_) &&
          TRY(at_next_checkpoint())) {
        outcome_.end = SegmentEnd::ReachedByExecution;
        return Next::Done;
      }
    }
    TRY(at_log_end());
    TRY(go());
    return Next::Resume;
  }
  // Checkpoint capture ran an injected stub ending in int3, so the kernel's
  // last-trap number (shown in a signal frame's trapno) was 3 when the
  // recorded program went on; do the same before a signal is delivered.
  if (!events_.empty() && events_[0].kind == store::EventKind::Signal)
    TRY_CTX(process::run_injected_stub(task_, process::sigaction_dump_stub(), [](user_regs_struct&) {}),
            "matching the recorder's last trap");
  // Asynchronous signals the recorder re-sent right after checkpoint k.
  // A synchronous one (a fault the segment's first instructions cause) is
  // not sent: the instruction raises it again.
  if (!s_.signals_queued_by_restore_)
    for (size_t i = 0; i < events_.size() && events_[i].kind == store::EventKind::Signal; i++) {
      if (is_synchronous(events_[i])) continue;
      if (syscall(SYS_tgkill, task_.tgid(), task_.raw_tid(), events_[i].signo) != 0)
        return Error::from_errno("tgkill");
    }
  s_.signals_queued_by_restore_ = false;

  // Already there (an empty segment)?
  if (has_next_ && !next_forced_ && events_.empty()) {
    user_regs_struct r = TRY(task_.regs());
    if (same_general_registers(r, target_, nullptr, target_at_ == RegsAt::InsideRepString ? RegsAt::Anywhere : target_at_) && TRY(at_next_checkpoint())) {
      outcome_.end = SegmentEnd::ReachedByExecution;
      return Next::Done;
    }
  }
  TRY(at_log_end());
  TRY(go());
  return Next::Resume;
}

// Waits for the tracee's stops and handles them until the segment ends or
// the observer pauses the run.
Result<SegmentOutcome> ReplaySession::SegmentRun::loop() {
  for (;;) {
    process::WaitResult w = TRY(task_.wait());
    SLSDBG_DEBUG("replay", "segment %llu event %zu/%zu: stop kind %d signo %d event %d",
                 (unsigned long long)seg_.value, cursor_, events_.size(), static_cast<int>(w.kind), w.signo, w.event);
    Next n = Next::Resume;
    switch (w.kind) {
      case process::StopKind::Exited:
      case process::StopKind::Killed:
        n = TRY(on_exit(w));
        if (n == Next::Resume) return Error::msg("internal: exit handled without end");
        break;
      case process::StopKind::PtraceEvent:
        if (w.event == PTRACE_EVENT_SECCOMP) {
          n = TRY(on_seccomp());
        } else {
          TRY(go());
        }
        break;
      case process::StopKind::SignalDelivery:
        n = TRY(on_signal(w.signo));
        break;
      case process::StopKind::GroupStop:
      case process::StopKind::SyscallStop:
        if (s_.observer_ && w.kind == process::StopKind::SyscallStop &&
            s_.observer_->on_syscall_exit(task_) == RunObserver::Verdict::Pause) {
          n = Next::Pause;
          break;
        }
        TRY(go());
        break;
    }
    if (n == Next::Pause) {
      outcome_.end = SegmentEnd::Paused;
      return outcome_;
    }
    const PatchedArrival* p = armed<PatchedArrival>();
    if (n == Next::Done && patch_failed() && p && p->rescue) {
      TRY(use_rescue());
      continue;
    }
    if (n == Next::Done) break;
  }
  return finish_run();
}

// Takes every arrival out; the patch only when the process goes on from
// the checkpoint (otherwise it ends or is replaced).
Result<SegmentOutcome> ReplaySession::SegmentRun::finish_run() {
  if (armed<PatchedArrival>() && outcome_.end == SegmentEnd::ReachedByExecution) TRY(remove_patch());
  if (DebugRegisterArrival* d = armed<DebugRegisterArrival>()) {
    if (outcome_.end != SegmentEnd::EndOfHistory) {
      TRY(remove_breakpoint());
    } else {
      s_.dregs_.release(d->slot);  // the process is gone
    }
  }
  arrival_.emplace<NothingArmed>();
  return outcome_;
}

}  // namespace slsdbg::replay
