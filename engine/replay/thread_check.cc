#include "engine/replay/thread_check.h"
#include "process/syscallbuf_stub.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "common/log.h"
#include "engine/replay/conditional_breakpoint.h"
#include "engine/replay/cut_call_writes.h"
#include "engine/replay/differing_word.h"
#include "engine/replay/exit_join.h"
#include "engine/replay/fd_placeholders.h"
#include "engine/replay/head_second_part.h"
#include "engine/replay/head_size.h"
#include "engine/replay/placeholder_mmap.h"
#include "engine/replay/replay_helpers.h"
#include "engine/replay/replay_restore.h"
#include "engine/replay/robust_death.h"
#include "engine/replay/signal_before_call.h"
#include "engine/replay/syscall_policy.h"
#include "engine/replay/thread_noise.h"
#include "engine/replay/thread_reach.h"
#include "engine/restore/restore.h"
#include "process/cpu.h"
#include "process/inject.h"
#include "process/proc_signals.h"
#include "process/seccomp_filter.h"
#include "process/signal_frame.h"
#include "process/signal_policy.h"
#include "process/syscalls/model.h"
#include "process/task_clock.h"
#include "process/vdso_patch.h"
#include "process/x86_insn.h"

namespace slsdbg::replay {

namespace {

constexpr uint64_t kPageSize = 4096;
#ifndef TRAP_PERF
constexpr int TRAP_PERF = 6;  // si_code of a perf sigtrap (asm-generic/siginfo.h)
#endif

std::array<uint64_t, 6> args_of(const user_regs_struct& r) { return {r.rdi, r.rsi, r.rdx, r.r10, r.r8, r.r9}; }

// A logged event, with the thread it belongs to.
std::string describe(const store::Event& ev) {
  if (ev.kind == store::EventKind::ForcedCheckpoint || ev.kind == store::EventKind::ThreadSwitch)
    return describe_event(ev);
  return describe_event(ev) + " (thread " + std::to_string(ev.tid.value) + ")";
}

// What a divergence report says of an unexpected stop.
std::string stop_name(const process::WaitResult& w, const user_regs_struct& r) {
  if (!w.stopped()) return "it ended";
  if (w.kind == process::StopKind::PtraceEvent)
    return w.event == PTRACE_EVENT_SECCOMP ? "syscall " + describe_syscall(static_cast<int64_t>(r.orig_rax), args_of(r))
                                           : "a ptrace event";
  if (w.kind == process::StopKind::SignalDelivery) return "signal " + std::to_string(w.signo);
  return "a ptrace stop";
}

// One thread of the replayed process, by the tid the recording knew it by.
struct Thread {
  enum class At {
    Stopped,  // in a ptrace stop with nothing to match: resumed when it runs
    Resumed,  // running (only the current thread)
    Pending,  // stopped at a stop not yet matched with the log
    InCall,   // at the seccomp stop of a call whose result the log has later
    Exiting,  // at the seccomp stop of its logged `exit`, run later (finish_exit)
    Gone,     // exited
  };
  Tid recorded;
  process::Task task;
  At at = At::Stopped;
  process::WaitResult stop{};
  int deliver = 0;  // signal to deliver when resumed
  bool fresh = true;  // not resumed since the checkpoint
  bool scheduled = false;  // named by a ThreadSwitch: it runs until it gives way
  // Its first event was the call it stood at the exit of (done_at_checkpoint):
  // a later event with the same call, arguments and result is a new call.
  bool served_at_checkpoint = false;
  // Exiting: its end runs once every thread reached checkpoint k+1, where a
  // join stands before its wait on the tid word (exit_join.h).
  bool exit_at_checkpoint = false;
  // Its next resume follows a trap of the arrival at checkpoint k+1 (a
  // perf breakpoint's miss, a deferred debug register): not one of the
  // thread's own resumes for the observer, whichever way arrives.
  bool after_arrival_trap = false;
};

class SegmentCheck {
 public:
  SegmentCheck(const store::RecordingReader& reader, CheckpointId k, ThreadTarget::Via first,
               SegmentObserver* observer = nullptr)
      : reader_(reader), k_(k), observer_(observer), first_(first) {}
  ~SegmentCheck() {
    if (leader_) leader_->kill_and_reap();
  }
  Result<SegmentOutcome> run();
  // How the last stretch's target was armed, if it was (thread_reach.h).
  std::optional<ThreadTarget::Via> armed() const { return armed_; }

 private:
  Status restore();
  Status tell_threads();
  Thread* find(int32_t recorded) {
    auto it = by_tid_.find(recorded);
    return it == by_tid_.end() ? nullptr : &threads_[it->second];
  }
  Status resume(Thread& th);
  Status wait_pending(Thread& th);
  Result<bool> serve_call(Thread& th, const store::Event& ev);
  Result<bool> serve_own(Thread& th, const store::Event& ev);
  Result<bool> process_exit(const store::Event& ev);
  Result<bool> done_at_checkpoint(Thread& th, const store::Event& ev);
  Result<bool> last_event_repeats(Tid tid, const store::Event& ev);
  Status finish_exit(Thread& th);
  Result<bool> reach_next();
  Result<const store::ProcessState*> next_state();
  Status finish_exits_at_checkpoint();
  void run_last_thread_left();
  Status enter_logged_handlers(const Thread* except);
  Result<bool> compare_next(const store::ProcessState& next);
  bool diverge(uint64_t pc, std::string expected, std::string actual) {
    out_.end = SegmentEnd::Diverged;
    out_.divergence = Divergence{SegmentId(k_.value), cursor_, std::move(expected), std::move(actual), pc};
    return false;
  }

  const store::RecordingReader& reader_;
  CheckpointId k_;
  SegmentObserver* observer_;  // a debugger's replay (threaded_timeline.h), else null
  std::vector<store::Event> events_;
  size_t cursor_ = 0;
  store::ProcessState state_;
  std::vector<Thread> threads_;  // [0] is the leader
  std::map<int32_t, size_t> by_tid_;
  process::Task* leader_ = nullptr;
  Thread* cur_ = nullptr;  // the thread the log says runs
  std::optional<uint64_t> last_diff_page_;
  // The word that told the last visit with equal registers apart
  // (differing_word.h), for the last stretch's patch to compare too.
  std::optional<MemCheck> last_word_;
  void note_differing_word(uint64_t vaddr, std::span<const uint8_t> live, std::span<const uint8_t> recorded,
                           std::span<const AddressRange> dead, const ImageReader& live_image,
                           const ImageReader& recorded_image);
  std::map<size_t, std::vector<Thread*>> exits_after_;  // event index -> threads whose exit runs after it
  std::optional<store::ProcessState> next_;  // checkpoint k+1's, once read
  ThreadTarget* reach_ = nullptr;  // armed in reach_next: compare_next sees the original code
  ThreadTarget::Via first_;
  bool switched_ = false;  // a ThreadSwitch event was replayed in this segment
  std::optional<ThreadTarget::Via> armed_;
  SegmentOutcome out_;
};

Status SegmentCheck::restore() {
  std::vector<restore::RestoredThread> others;
  process::Task leader = TRY(restore_for_replay(reader_, k_, &others));
  threads_.reserve(others.size() + 1);
  threads_.push_back(Thread{state_.threads.front().tid, std::move(leader)});
  leader_ = &threads_.front().task;
  for (restore::RestoredThread& t : others) threads_.push_back(Thread{t.recorded, std::move(t.task)});
  for (size_t i = 0; i < threads_.size(); i++) by_tid_[threads_[i].recorded.value] = i;
  return tell_threads();
}

Status SegmentCheck::tell_threads() {
  if (!observer_) return ok_status();
  std::vector<SegmentThread> live;
  for (Thread& t : threads_)
    if (t.at != Thread::At::Gone) live.push_back(SegmentThread{t.recorded, &t.task});
  return observer_->threads_changed(live);
}

Status SegmentCheck::resume(Thread& th) {
  if (th.at != Thread::At::Stopped) return ok_status();
  if (observer_ && observer_->step_on_resume(th.recorded, !std::exchange(th.after_arrival_trap, false))) {
    // A step asked at a pause that was no trap (a seek's anchor: a resume,
    // a call's return) finds the patch in: out first, as after a trap.
    if (reach_ && reach_->patched()) TRY(reach_->follow_debugger(th.task));
    if (reach_ && reach_->patched()) return Error::msg("internal: a single step through the patched breakpoint");
    TRY(th.task.singlestep(std::exchange(th.deliver, 0)));
  }
  else
    TRY(th.task.cont(std::exchange(th.deliver, 0)));
  th.at = Thread::At::Resumed;
  th.fresh = false;
  return ok_status();
}

// Runs `th` to its next stop the log could name (a syscall, a signal, rdtsc, its end).
Status SegmentCheck::wait_pending(Thread& th) {
  if (th.at != Thread::At::Stopped && th.at != Thread::At::Resumed) return ok_status();
  TRY(resume(th));
  for (;;) {
    process::WaitResult w = TRY(th.task.wait());
    if (observer_ && w.kind == process::StopKind::SignalDelivery && w.signo == SIGTRAP) {
      // int3 of a debugger's breakpoint, or its single step (TRAP_BRKPT
      // when the step ends at a system call's return), or a watched access (TRAP_HWBKPT).
      siginfo_t si = TRY(th.task.siginfo());
      user_regs_struct regs = TRY(th.task.regs());
      const bool ours = reach_ && reach_->owns_trap(regs, si);
      if (!ours &&
          (si.si_code == SI_KERNEL || si.si_code == TRAP_TRACE || si.si_code == TRAP_BRKPT || si.si_code == TRAP_HWBKPT)) {
        // A watch that fired in the patch's trampoline: the debugger sees
        // the thread at the program's pc of the moved instruction (the
        // registers are the program's), and it goes back to the trampoline
        // if the patch stays in.
        const uint64_t in_trampoline = regs.rip;
        const std::optional<uint64_t> shown = reach_ ? reach_->program_pc(regs.rip) : std::nullopt;
        if (shown) {
          SLSDBG_DEBUG("replay", "thread %d trapped in the trampoline at %s: shown at %s", th.recorded.value,
                       hex(regs.rip).c_str(), hex(*shown).c_str());
          regs.rip = *shown;
          TRY(th.task.set_regs(regs));
        }
        auto instead = TRY(observer_->trapped(SegmentThread{th.recorded, &th.task}, w));
        // The debugger may have paused here and now step or watch: then the
        // patch goes before the thread runs on.
        if (reach_) TRY(reach_->follow_debugger(th.task));
        if (shown && !instead && reach_->patched()) {
          regs = TRY(th.task.regs());
          if (regs.rip == *shown) {
            regs.rip = in_trampoline;
            TRY(th.task.set_regs(regs));
          }
        }
        if (!instead) {
          th.at = Thread::At::Stopped;
          TRY(resume(th));
          continue;
        }
        w = *instead;
      }
    }
    if (!w.stopped()) {
      th.at = Thread::At::Gone;
      th.stop = w;
      return ok_status();
    }
    bool stray = (w.kind == process::StopKind::PtraceEvent && w.event != PTRACE_EVENT_SECCOMP) ||
                 w.kind == process::StopKind::GroupStop || w.kind == process::StopKind::SyscallStop;
    if (w.kind == process::StopKind::SignalDelivery && (w.signo == SIGCHLD || w.signo == SIGURG || w.signo == SIGWINCH)) {
      // One the recorder dropped unlogged, as the kernel would have
      // (process/signal_policy.h): pending at a checkpoint while blocked.
      const process::PendingSignals p = TRY(process::read_pending_signals(leader_->tgid(), th.task.raw_tid()));
      process::Dispositions d;
      d.set(w.signo, {(p.caught & (1ull << (w.signo - 1))) ? 2u : 0u, 0});
      stray = process::kernel_discards(w.signo, d, TRY(th.task.regs()));
    }
    if (!stray) {
      th.at = Thread::At::Pending;
      th.stop = w;
      return ok_status();
    }
    TRY(th.task.cont());
  }
}

// `th` sits at the seccomp stop of the call `ev` logged: run it or give it
// the logged result. False: diverged.
Result<bool> SegmentCheck::serve_call(Thread& th, const store::Event& ev) {
  user_regs_struct r = TRY(th.task.regs());
  const int64_t nr = static_cast<int64_t>(r.orig_rax);
  const auto args = args_of(r);
  const std::string actual = "syscall " + describe_syscall(nr, args) + " (thread " + std::to_string(th.recorded.value) + ")";
  if (ev.kind != store::EventKind::Syscall || ev.syscall_no != nr || ev.args != args)
    return diverge(r.rip, describe(ev), actual);
  if (observer_) TRY(observer_->at_syscall(SegmentThread{th.recorded, &th.task}, cursor_, ev, /*entry=*/true));
  const SyscallHandling how = handling_of(nr, args);
  if (nr == SYS_exit) {
    // A thread's end runs for real: the kernel clears its tid word and
    // wakes pthread_join. The recorder logged it before the kernel ran it,
    // so a join may have seen the tid word still set: the end runs after
    // the join's wait, or at the next checkpoint where the join stands
    // before it, else now (exit_join.h). Nothing else runs until it is gone.
    th.at = Thread::At::Exiting;
    uint64_t ctid = 0;
    for (const auto& t : state_.threads)
      if (t.tid == th.recorded) ctid = t.clear_child_tid;
    if (std::optional<size_t> wait = futex_wait_after(events_, cursor_, ctid)) {
      exits_after_[*wait].push_back(&th);
      return true;
    }
    if (ctid && k_.value + 1 < reader_.checkpoints().size()) {
      const store::ProcessState& next = *TRY(next_state());
      const CheckpointId at(k_.value + 1);
      auto syscall_insn = [&](uint64_t pc) {
        uint8_t code[2] = {0, 0};
        return pc == process::sysbuf_stub_layout().slow ||
               (reader_.read_memory(at, pc, {code, 2}).ok() && process::is_syscall_insn(code));
      };
      if (waits_on_word_at(next, th.recorded, ctid, syscall_insn)) {
        SLSDBG_DEBUG("replay", "segment %llu: thread %d's exit runs at checkpoint %llu (a join stands before its wait)",
                     (unsigned long long)k_.value, th.recorded.value, (unsigned long long)at.value);
        th.exit_at_checkpoint = true;
        run_last_thread_left();
        return true;
      }
    }
    TRY(finish_exit(th));
    return true;
  }
  if (how == SyscallHandling::Emulate || how == SyscallHandling::EndOfProcess) {
    r.orig_rax = static_cast<uint64_t>(-1);
    r.rax = static_cast<uint64_t>(ev.result);
    TRY(th.task.set_regs(r));
    TRY_CTX(install_placeholders(th.task, created_fds(ev)), "replaying " + actual);
  } else {
    const bool pinned = pin_placement(nr, ev, r) | map_placeholder_anonymous(th.task.raw_tid(), nr, ev, r);
    if (pinned) TRY(th.task.set_regs(r));
    TRY(th.task.syscall());
    process::WaitResult w = TRY(th.task.wait());
    if (w.kind != process::StopKind::SyscallStop) return diverge(r.rip, describe(ev), actual + " did not return");
    user_regs_struct after = TRY(th.task.regs());
    if (pinned) {
      after.rdi = args[0];
      after.r10 = args[3];
      after.r8 = args[4];
      TRY(th.task.set_regs(after));
    }
    const int64_t result = static_cast<int64_t>(after.rax);
    if (result != ev.result) {
      if (how == SyscallHandling::RunAndCheck && !TRY(settle_changed_open(th.task, nr, result, ev)))
        return diverge(r.rip, describe(ev), actual + " = " + std::to_string(result));
      after.rax = static_cast<uint64_t>(ev.result);
      TRY(th.task.set_regs(after));
    }
  }
  for (const store::MemoryWrite& w : ev.writes)
    TRY_CTX(th.task.write_memory(RemoteAddr(w.addr), w.bytes), "writing the logged output of " + actual);
  th.at = Thread::At::Stopped;
  if (observer_) TRY(observer_->at_syscall(SegmentThread{th.recorded, &th.task}, cursor_, ev, /*entry=*/false));
  return true;
}

Status SegmentCheck::finish_exit(Thread& th) {
  if (th.at != Thread::At::Exiting) return ok_status();
  th.exit_at_checkpoint = false;
  // Its robust list: checkpoint k's, or the one it set in this segment
  // (a new thread's first call).
  uint64_t robust_head = 0;
  for (const auto& t : state_.threads)
    if (t.tid == th.recorded) robust_head = t.robust_list_head;
  for (size_t i = 0; i < cursor_ && i < events_.size(); i++) {
    const store::Event& e = events_[i];
    if (e.tid == th.recorded && e.kind == store::EventKind::Syscall && e.syscall_no == SYS_set_robust_list && e.result == 0)
      robust_head = e.args[0];
  }
  const int marked = TRY_CTX(mark_dead_owner_mutexes(th.task, robust_head, th.recorded),
                             "marking thread " + std::to_string(th.recorded.value) + "'s robust mutexes");
  if (marked)
    SLSDBG_DEBUG("replay", "segment %llu: thread %d ends holding %d robust mutexes (marked FUTEX_OWNER_DIED)",
                 (unsigned long long)k_.value, th.recorded.value, marked);
  TRY(th.task.cont());
  process::WaitResult w = TRY(th.task.wait());
  while (w.stopped()) {
    TRY(th.task.cont());
    w = TRY(th.task.wait());
  }
  th.at = Thread::At::Gone;
  TRY(tell_threads());
  run_last_thread_left();
  return ok_status();
}

// The last thread left runs, as the recorder let it without a ThreadSwitch
// (a thread whose end waits for checkpoint k+1 had ended there).
void SegmentCheck::run_last_thread_left() {
  Thread* alone = nullptr;
  size_t live = 0;
  for (Thread& t : threads_)
    if (t.at != Thread::At::Gone && !t.exit_at_checkpoint) {
      live++;
      alone = &t;
    }
  if (live == 1) {
    cur_ = alone;
    cur_->scheduled = true;
  }
}

// An event of the running thread: match it with the thread's next stop.
Result<bool> SegmentCheck::serve_own(Thread& th, const store::Event& ev) {
  TRY(wait_pending(th));
  if (th.at == Thread::At::Gone) return diverge(0, describe(ev), "thread " + std::to_string(th.recorded.value) + " ended");
  if (th.at == Thread::At::Exiting) return diverge(0, describe(ev), "thread " + std::to_string(th.recorded.value) + " ending");
  if (th.at == Thread::At::InCall) return serve_call(th, ev);
  const process::WaitResult& w = th.stop;
  if (w.kind == process::StopKind::PtraceEvent) return serve_call(th, ev);
  user_regs_struct r = TRY(th.task.regs());
  siginfo_t si = TRY(th.task.siginfo());
  if (w.signo == SIGSEGV && si.si_code == SI_KERNEL) {
    uint8_t code[3] = {0, 0, 0};
    if (th.task.read_memory(RemoteAddr(r.rip), {code, 3}).ok() && code[0] == 0x0f &&
        (code[1] == 0x31 || (code[1] == 0x01 && code[2] == 0xf9))) {
      const bool rdtscp = code[1] == 0x01;
      if (ev.kind != store::EventKind::Rdtsc || ev.is_rdtscp != rdtscp)
        return diverge(r.rip, describe(ev), rdtscp ? "rdtscp" : "rdtsc");
      r.rax = ev.tsc & 0xffffffffu;
      r.rdx = ev.tsc >> 32;
      if (rdtscp) r.rcx = ev.tsc_aux;
      r.rip += rdtscp ? 3 : 2;
      r.eflags &= ~process::kEflagsRf;
      TRY(th.task.set_regs(r));
      th.at = Thread::At::Stopped;
      return true;
    }
  }
  if (ev.kind != store::EventKind::Signal || ev.signo != w.signo)
    return diverge(r.rip, describe(ev), "signal " + std::to_string(w.signo) + " (thread " +
                                            std::to_string(th.recorded.value) + ")");
  if (ev.siginfo.size() >= sizeof(siginfo_t)) {
    siginfo_t logged;
    std::memcpy(&logged, ev.siginfo.data(), sizeof logged);
    TRY(th.task.set_siginfo(logged));
    // Held and re-sent by the recorder, which zeroed the frame's FPU area
    // first (process/signal_frame.h).
    if (process::classify_signal(logged) != process::SignalTiming::Synchronous) {
      TRY_CTX(process::clear_signal_fpu_area(th.task, w.signo), "preparing the signal frame");
      // Its trapno too once the segment has threads, as the recorder's
      // threads_in_segment() decides.
      if (state_.threads.size() > 1 || switched_) TRY_CTX(process::set_frame_trapno(th.task), "preparing the signal frame");
    }
  }
  th.deliver = w.signo;
  th.at = Thread::At::Stopped;
  return true;
}

// As the recorder's stop_all() before a checkpoint (enter_logged_handlers):
// a thread other than `except` that waits with a logged signal has it
// delivered up to its handler's first instruction.
Status SegmentCheck::enter_logged_handlers(const Thread* except) {
  for (Thread& th : threads_) {
    if (&th == except || th.at != Thread::At::Stopped || th.deliver == 0) continue;
    const process::PendingSignals p = TRY(process::read_pending_signals(leader_->tgid(), th.task.raw_tid()));
    if (!(p.caught & (1ull << (th.deliver - 1)))) continue;
    TRY(th.task.interrupt());
    TRY(th.task.cont(std::exchange(th.deliver, 0)));
    process::WaitResult w = TRY(th.task.wait());
    if (w.kind != process::StopKind::PtraceEvent || w.event != PTRACE_EVENT_STOP)
      return Error::msg("thread " + std::to_string(th.recorded.value) + ": no stop at its signal handler");
    th.fresh = false;
  }
  return ok_status();
}

// A thread checkpointed at the exit stop of a call whose event the log has
// right after the checkpoint: its registers already hold the result; only
// the call's memory writes are applied.
Result<bool> SegmentCheck::done_at_checkpoint(Thread& th, const store::Event& ev) {
  if (!th.fresh || th.served_at_checkpoint || th.at != Thread::At::Stopped || ev.kind != store::EventKind::Syscall)
    return false;
  const store::ThreadState* t = nullptr;
  for (const auto& s : state_.threads)
    if (s.tid == th.recorded) t = &s;
  if (!t || t->restarted_syscall || t->regs.rip != ev.pc || static_cast<int64_t>(t->regs.orig_rax) != ev.syscall_no ||
      static_cast<int64_t>(t->regs.rax) != ev.result || args_of(t->regs) != ev.args)
    return false;
  // The same call may also be the thread's last event before checkpoint k:
  // the checkpoint stopped it at the exit of a call logged before it, and
  // the event here is its next call with equal arguments and result
  // (python3 reads a clock twice in a row; a spinning thread reads it every
  // round). That call is still to run. The thread's last event may lie
  // several segments back when other threads ran meanwhile.
  if (TRY(last_event_repeats(th.recorded, ev))) return false;
  for (const store::MemoryWrite& w : ev.writes)
    TRY_CTX(th.task.write_memory(RemoteAddr(w.addr), w.bytes), "writing the logged output of " + describe(ev));
  th.served_at_checkpoint = true;
  SLSDBG_DEBUG("replay", "segment %llu: thread %d's %s happened before the checkpoint", (unsigned long long)k_.value,
               th.recorded.value, describe(ev).c_str());
  return true;
}

// Whether thread `tid`'s last event before checkpoint k is the call `ev`
// (same pc, number, arguments and result).
Result<bool> SegmentCheck::last_event_repeats(Tid tid, const store::Event& ev) {
  for (uint64_t seg = k_.value; seg-- > 0;) {
    const std::vector<store::Event> before =
        TRY_CTX(reader_.segment_events(SegmentId(seg)), "reading segment " + std::to_string(seg));
    for (size_t i = before.size(); i-- > 0;) {
      const store::Event& e = before[i];
      // A forced checkpoint is no call of the thread (a member that shares
      // memory may log one alone in a segment between two of its calls).
      if (e.tid != tid || e.kind == store::EventKind::ThreadSwitch || e.kind == store::EventKind::ForcedCheckpoint)
        continue;
      return e.kind == store::EventKind::Syscall && e.pc == ev.pc && e.syscall_no == ev.syscall_no &&
             e.args == ev.args && e.result == ev.result;
    }
  }
  return false;
}

// The logged exit of the process: its exit_group runs for real.
Result<bool> SegmentCheck::process_exit(const store::Event& ev) {
  if (cur_) {
    TRY(wait_pending(*cur_));
    if (cur_->at == Thread::At::Pending) TRY(cur_->task.cont());
  }
  // Every other thread's end is reported before the leader's.
  for (size_t i = threads_.size(); i-- > 0;) {
    Thread& th = threads_[i];
    if (th.at == Thread::At::Gone) continue;
    process::WaitResult w = TRY(th.task.wait());
    while (w.stopped()) {
      TRY(th.task.cont());
      w = TRY(th.task.wait());
    }
    th.at = Thread::At::Gone;
    th.stop = w;
  }
  const process::WaitResult& w = threads_.front().stop;
  const bool killed = w.kind == process::StopKind::Killed;
  leader_ = nullptr;  // reaped
  if (killed ? ev.signo != w.signo : (ev.signo != 0 || ev.exit_status != w.exit_code))
    return diverge(0, describe(ev), killed ? "killed by signal " + std::to_string(w.signo)
                                           : "exit with status " + std::to_string(w.exit_code));
  out_.end = SegmentEnd::EndOfHistory;
  return true;
}

// The log is consumed: bring the thread that was running at checkpoint k+1
// to its registers there, then compare everything.
Result<const store::ProcessState*> SegmentCheck::next_state() {
  if (!next_) next_ = TRY(reader_.process_state(CheckpointId(k_.value + 1)));
  return &*next_;
}

// Every thread stands where checkpoint k+1 has it: the ends that waited
// for a join to get there run now.
Status SegmentCheck::finish_exits_at_checkpoint() {
  for (Thread& t : threads_)
    if (t.exit_at_checkpoint) TRY(finish_exit(t));
  return ok_status();
}

Result<bool> SegmentCheck::reach_next() {
  const std::string where = "checkpoint " + std::to_string(k_.value + 1);
  const store::ProcessState& next = *TRY(next_state());
  for (const store::ThreadState& t : next.threads)
    SLSDBG_DEBUG("replay", "%s: thread %d at %s%s%s", where.c_str(), t.tid.value, hex(t.regs.rip).c_str(),
                 t.restarted_syscall ? " (before its call)" : "", t.tid.value == next.running_tid ? " (running)" : "");
  if (next.running_tid == 0) {
    TRY(enter_logged_handlers(nullptr));
    // Every thread waited in a call: the last one to run went on to its
    // call. That may be checkpoint k's running thread in a segment without
    // events (from a write's return to the wait4 the checkpoint cut, #16).
    for (const store::ThreadState& t : next.threads) {
      Thread* th = find(t.tid.value);
      if (!th || !t.restarted_syscall || th->at == Thread::At::InCall) continue;
      if (th->at == Thread::At::Resumed ||
          (th->at == Thread::At::Stopped && (!th->fresh || th->scheduled || th == cur_))) {
        TRY(wait_pending(*th));
        if (th->at == Thread::At::Pending && th->stop.kind == process::StopKind::PtraceEvent) th->at = Thread::At::InCall;
      }
    }
    return compare_next(next);
  }
  Thread* th = find(next.running_tid);
  if (!th || th != cur_)
    return diverge(0, "thread " + std::to_string(next.running_tid) + " running at " + where,
                   cur_ ? "thread " + std::to_string(cur_->recorded.value) + " runs" : "no thread runs");
  const store::ThreadState* want = nullptr;
  for (const auto& t : next.threads)
    if (t.tid.value == next.running_tid) want = &t;
  if (!want) return Error::msg(where + " lacks its running thread");
  TRY(enter_logged_handlers(th));
  if (th->at == Thread::At::Stopped) {  // already there (an empty stretch)?
    user_regs_struct now = TRY(th->task.regs());
    if (same_general_registers(now, want->regs, nullptr, RegsAt::Anywhere)) {
      if (TRY(compare_next(next))) return true;
      if (out_.divergence) return false;
    }
  }
  uint8_t code[2] = {0, 0};
  // The syscall buffer stub's trapped `syscall` is not in the recorded image
  // (the injection area is not captured) but sits at a fixed address.
  const bool stub_syscall = want->regs.rip == process::sysbuf_stub_layout().slow;
  const bool rewound = want->restarted_syscall ||
                       (want->regs.rcx == want->regs.rip + 2 &&
                        (stub_syscall || (reader_.read_memory(CheckpointId(k_.value + 1), want->regs.rip, {code, 2}).ok() &&
                                          process::is_syscall_insn(code))));
  if (rewound) {
    // The recorder rewound it at the seccomp stop of its next call, or a
    // signal cut the call it waited in (then it is at that call's seccomp
    // stop here already: the same state).
    if (th->at == Thread::At::InCall) return compare_next(next);
    TRY(wait_pending(*th));
    if (th->at != Thread::At::Pending || th->stop.kind != process::StopKind::PtraceEvent) {
      user_regs_struct r = TRY(th->task.regs());
      return diverge(r.rip, where + " (before a call)", "another stop of thread " + std::to_string(th->recorded.value) + " (" + stop_name(th->stop, r) + ")");
    }
    th->at = Thread::At::InCall;
    return compare_next(next);
  }
  // The patched breakpoint, else the conditional one, else a debug register (thread_reach.h).
  const pid_t tid = th->task.raw_tid();
  if (th->at != Thread::At::Stopped) TRY(wait_pending(*th));
  if (th->at != Thread::At::Stopped && th->at != Thread::At::Pending)
    return diverge(0, where + " (the log is consumed)", "thread " + std::to_string(th->recorded.value) + " ended");
  const auto cps = reader_.checkpoints();
  const uint64_t hint = k_.value + 1 < cps.size() ? cps[k_.value + 1].cpu_since_event_ns.value_or(0) : 0;
  // The head (SegmentObserver::allows_head): most of the stretch runs with
  // nothing armed, stopped by a CPU-time alarm, sized by what replay took
  // against the hint before (head_size.h). Only its alarm may stop it:
  // any other stop is past the checkpoint, which comes before the next
  // event. Without a fork to go back to (a fork holds one thread), a head
  // that ran too far costs a rerun of the segment.
  std::optional<process::TaskClock> clock;
  uint64_t cpu_at_start = 0;
  if (observer_ && th->at == Thread::At::Stopped && hint >= kMinHeadNs && observer_->allows_head()) {
    clock = process::TaskClock::open(leader_->tgid());
    if (Result<uint64_t> c = clock->read(); c.ok()) cpu_at_start = *c; else clock.reset();
  }
  bool headed = false;
  if (const uint64_t head = clock && threaded_head_worthwhile() ? head_ns_for(hint) : 0; head > 0) {
    // Runs the thread `ns` more of its CPU time: false if another stop came first.
    auto run_unarmed = [&](uint64_t ns, const char*) -> Result<bool> {
      Result<UniqueFd> head_alarm = process::arm_cpu_time_alarm(tid, ns);
      if (!head_alarm.ok()) return false;
      TRY(wait_pending(*th));
      head_alarm->reset();
      if (th->at != Thread::At::Pending || th->stop.kind != process::StopKind::SignalDelivery || th->stop.signo != SIGTRAP ||
          !process::is_cpu_time_alarm(TRY(th->task.siginfo())))
        return false;
      th->at = Thread::At::Stopped;
      th->after_arrival_trap = true;  // not a resume of the thread's own
      return true;
    };
    SecondPartRun io;
    io.regs = [&] { return th->task.regs(); };
    io.live = [&](uint64_t a, std::span<uint8_t> out) { return th->task.read_memory(RemoteAddr(a), out); };
    io.recorded = [&](uint64_t a, std::span<uint8_t> out) {
      return reader_.read_memory(CheckpointId(k_.value + 1), a, out);
    };
    io.run = run_unarmed;
    const std::vector<uint64_t> start = progress_values(TRY(th->task.regs()), want->regs.rsp, io.live);
    const bool ran = TRY(run_unarmed(head, "head"));
    SecondPart second;
    if (ran) second = TRY(run_second_part(want->regs, head, hint, start, io, where));
    if (!ran || second.end == SecondPartEnd::Stopped || second.end == SecondPartEnd::Past) {
      std::string why = "went too far";
      if (second.end != SecondPartEnd::Past) {
        why = "stopped otherwise";
        if (th->at == Thread::At::Pending)
          if (Result<user_regs_struct> r = th->task.regs(); r.ok()) why += " (" + stop_name(th->stop, *r) + ")";
      }
      SLSDBG_DEBUG("replay", "%s: the unarmed head of %llu us (hint %llu us) %s; the segment again without one",
                   where.c_str(), (unsigned long long)head / 1000, (unsigned long long)hint / 1000, why.c_str());
      note_ratio(0.5 * static_cast<double>(head) / static_cast<double>(hint));  // too long, maybe
      note_threaded_head(false);
      out_.head_missed = true;
      return false;
    }
    SLSDBG_DEBUG("replay", "%s: %llu us of %llu us ran unarmed", where.c_str(),
                 (unsigned long long)(head + second.ns) / 1000, (unsigned long long)hint / 1000);
    headed = true;
  }
  ThreadTarget::PatchAllowed allowed;
  ThreadTarget::ReadAllowed reads;
  if (observer_) {
    allowed = [this](uint64_t begin, uint64_t end) { return observer_->allows_patch(begin, end); };
    reads = [this](uint64_t addr, uint64_t len) { return !observer_->reads_watched(addr, len); };
  }
  ThreadTarget target = TRY(ThreadTarget::arm(th->task, want->regs, first_, allowed, reads));
  reach_ = &target;
  armed_ = target.via();
  SLSDBG_DEBUG("replay", "%s: thread %d armed at %s (%s)", where.c_str(), th->recorded.value, hex(want->regs.rip).c_str(),
               target.via() == ThreadTarget::Via::Patch ? "patched breakpoint"
               : target.via() == ThreadTarget::Via::Conditional ? "conditional breakpoint" : "debug register");
  // A bound on a run that misses: a clear error, not a hang. After a head,
  // a tight one: the patch never matches once the head went past.
  const uint64_t budget = headed ? 3 * hint + 2'000'000 : std::max<uint64_t>(hint * 64, 3'000'000'000ull);
  uint64_t cpu_at_arm = 0;
  if (headed) cpu_at_arm = TRY(clock->read());
  UniqueFd alarm;
  if (auto a = process::arm_cpu_time_alarm(tid, budget); a.ok()) alarm = std::move(*a);
  for (;;) {
    TRY(wait_pending(*th));
    if (headed && th->at != Thread::At::Pending) {
      note_threaded_head(false);
      out_.head_missed = true;  // it ended: past the checkpoint
      return false;
    }
    user_regs_struct r = TRY(th->task.regs());
    if (th->at != Thread::At::Pending || th->stop.kind != process::StopKind::SignalDelivery || th->stop.signo != SIGTRAP) {
      if (headed) {
        SLSDBG_DEBUG("replay", "%s: after the unarmed head, %s; the segment again without one", where.c_str(),
                     stop_name(th->stop, r).c_str());
        note_threaded_head(false);
        out_.head_missed = true;
        return false;
      }
      return diverge(r.rip, where + " (the log is consumed)", "another stop of thread " + std::to_string(th->recorded.value) + " (" + stop_name(th->stop, r) + ")");
    }
    siginfo_t si = TRY(th->task.siginfo());
    if (process::is_cpu_time_alarm(si) && headed) {
      if (TRY(clock->read()) - cpu_at_arm < budget) {  // the head's, queued again before it was closed
        th->at = Thread::At::Stopped;
        th->after_arrival_trap = true;
        continue;
      }
      SLSDBG_DEBUG("replay", "%s: not matched within %llu us after the unarmed head; the segment again without one",
                   where.c_str(), (unsigned long long)budget / 1000);
      note_ratio(0.5 * static_cast<double>(replay_ratio().value_or(1.0)));
      note_threaded_head(false);
      out_.head_missed = true;
      return false;
    }
    if (process::is_cpu_time_alarm(si))
      return Error::msg(where + " not reached within " + std::to_string(budget / 1'000'000'000) +
                        " s of CPU time of thread " + std::to_string(th->recorded.value) +
                        " (the thread runs on without matching it)");
    th->at = Thread::At::Stopped;
    th->after_arrival_trap = true;
    const ThreadTarget::Trap trap = TRY(target.on_sigtrap(th->task, si));
    if (trap == ThreadTarget::Trap::NotOurs) return diverge(r.rip, where, "a SIGTRAP");
    if (trap == ThreadTarget::Trap::Miss) continue;
    last_word_.reset();
    if (TRY(compare_next(next))) break;
    if (out_.divergence) return false;
    // An earlier visit with equal registers: the patch learns the word
    // that told it apart, so such visits no longer trap (a -O0 loop keeps
    // its counters in memory).
    if (last_word_) TRY(target.refit(th->task, *last_word_));
    TRY(target.go_on(th->task));
  }
  reach_ = nullptr;
  out_.patched = target.via() == ThreadTarget::Via::Patch;
  TRY(target.disarm(th->task));
  if (clock)
    if (Result<uint64_t> c = clock->read(); c.ok()) {
      const double ratio = static_cast<double>(*c - cpu_at_start) / static_cast<double>(hint);
      note_ratio(ratio);
      if (headed) note_threaded_head(true);
      else note_armed_stretch(ratio);
    }
  return true;
}

// Every thread's registers and checkpoint k+1's dirty pages. False with no
// divergence set: the memory differs (an earlier visit of the pc).
Result<bool> SegmentCheck::compare_next(const store::ProcessState& next) {
  TRY(finish_exits_at_checkpoint());
  size_t live = 0;
  for (const Thread& th : threads_) live += th.at != Thread::At::Gone;
  if (live != next.threads.size())
    return diverge(0, std::to_string(next.threads.size()) + " threads at checkpoint " + std::to_string(k_.value + 1),
                   std::to_string(live) + " threads");
  // The bytes the kernel wrote for calls the checkpoint cut (cut_call_writes.h).
  std::vector<AddressRange> cut_writes;
  for (const store::ThreadState& want : next.threads) {
    Thread* th = find(want.tid.value);
    if (!th || th->at == Thread::At::Gone)
      return diverge(0, "thread " + std::to_string(want.tid.value) + " at checkpoint " + std::to_string(k_.value + 1),
                     "no such thread");
    if (th->at == Thread::At::Resumed) return Error::msg("internal: comparing a running thread");
    user_regs_struct r = TRY(th->task.regs());
    RegsAt at = RegsAt::Anywhere;
    if (th->at == Thread::At::InCall && want.restarted_syscall)
      for (const AddressRange& w : cut_call_writes(static_cast<long>(r.orig_rax), args_of(r))) cut_writes.push_back(w);
    if (th->at == Thread::At::InCall) {
      // Stored as just before its call (the recorder rewound it).
      r.rip -= 2;
      r.rax = r.orig_rax;
      at = RegsAt::RewoundSyscall;
    } else if (want.restarted_syscall) {
      at = RegsAt::RewoundSyscall;
    }
    std::string diff;
    if (!same_general_registers(r, want.regs, &diff, at))
      return diverge(r.rip, "thread " + std::to_string(want.tid.value) + "'s registers at checkpoint " +
                                std::to_string(k_.value + 1),
                     diff);
  }
  // A debugger's int3 bytes are not the program's.
  if (observer_) TRY(observer_->lift_breakpoints());
  struct Reinsert {
    SegmentObserver* o;
    ~Reinsert() {
      if (o) (void)o->insert_breakpoints();
    }
  } reinsert{observer_};
  std::vector<uint8_t> page(kPageSize);
  const CheckpointId at(k_.value + 1);
  // Dead stack (thread_noise.h): below each live thread's stack pointer,
  // and below where a thread that ended since checkpoint k stood then.
  std::vector<AddressRange> dead;
  for (const store::ThreadState& t : next.threads)
    if (auto r = dead_stack_range(next, t.regs.rsp)) dead.push_back(*r);
  for (const store::ThreadState& t : state_.threads) {
    bool live = false;
    for (const store::ThreadState& n : next.threads) live = live || n.tid == t.tid;
    if (!live)
      if (auto r = dead_stack_range(next, t.regs.rsp)) dead.push_back(*r);
  }
  process::Task& task = threads_.front().task;
  const ImageReader recorded_image = [this, at](uint64_t a, std::span<uint8_t> out) {
    return reader_.read_memory(at, a, out);
  };
  // Stores a cut rep string instruction made ahead of its registers (rep_store.h).
  std::vector<RepAhead> ahead;
  for (const store::ThreadState& t : next.threads) {
    uint8_t code[16] = {};
    if (!recorded_image(t.regs.rip, code).ok()) continue;
    if (std::optional<RepStore> op = decode_rep_store(code))
      if (std::optional<RepAhead> a = rep_ahead(*op, t.regs)) ahead.push_back(*a);
  }
  const ImageReader live_image = [this, &task, &cut_writes, &recorded_image](uint64_t a, std::span<uint8_t> out) -> Status {
    TRY(task.read_memory(RemoteAddr(a), out));
    if (reach_) reach_->hide(a, out);
    overlay_recorded(cut_writes, recorded_image, a, out);
    return ok_status();
  };
  ThreadSettle settle;
  std::vector<uint8_t> recorded(kPageSize);
  if (last_diff_page_) {
    // A loop whose state lives in memory repeats its registers: the page
    // that differed last time usually differs again.
    if (reader_.read_memory(at, *last_diff_page_, recorded).ok() && live_image(*last_diff_page_, page).ok() &&
        !equal_but_thread_noise(*last_diff_page_, page, recorded, dead, ahead, live_image, recorded_image, settle)) {
      note_differing_word(*last_diff_page_, page, recorded, dead, live_image, recorded_image);
      return false;
    }
    settle = ThreadSettle{};
  }
  bool same = true;
  uint64_t compared = 0;
  TRY(reader_.for_each_dirty_page(at, [&](uint64_t vaddr, std::span<const uint8_t> data) -> Status {
    if (!same) return ok_status();
    TRY_CTX(live_image(vaddr, page), "reading page " + hex(vaddr));
    compared++;
    if (equal_but_thread_noise(vaddr, page, data, dead, ahead, live_image, recorded_image, settle)) return ok_status();
    same = false;
    last_diff_page_ = vaddr;
    note_differing_word(vaddr, page, data, dead, live_image, recorded_image);
    size_t lo = 0, hi = kPageSize;
    while (page[lo] == data[lo]) lo++;
    while (page[hi - 1] == data[hi - 1]) hi--;
    SLSDBG_DEBUG("replay", "checkpoint %llu: page %s differs in [%s, %s) (first byte %02x, recorded %02x)",
                 (unsigned long long)at.value, hex(vaddr).c_str(), hex(vaddr + lo).c_str(), hex(vaddr + hi).c_str(),
                 page[lo], data[lo]);
    return ok_status();
  }));
  out_.pages_compared += compared;
  if (!same) return false;
  // Equal but for noise: the live process is made equal to the checkpoint.
  const auto set_recorded = [&](uint64_t addr, uint64_t len, const std::string& what) -> Status {
    std::vector<uint8_t> bytes(len);
    TRY_CTX(reader_.read_memory(at, addr, bytes), "reading recorded " + what + " at " + hex(addr));
    TRY_CTX(task.write_memory(RemoteAddr(addr), bytes), "writing recorded " + what + " at " + hex(addr));
    return ok_status();
  };
  for (const ByteRun& run : settle.dead_runs) {
    TRY(set_recorded(run.addr, run.len, "dead stack"));
    out_.dead_stack_bytes_settled += run.len;
  }
  uint64_t ahead_bytes = 0;
  for (const ByteRun& run : settle.rep_ahead_runs) {
    TRY(set_recorded(run.addr, run.len, "rep string stores"));
    ahead_bytes += run.len;
  }
  if (ahead_bytes)
    SLSDBG_DEBUG("replay", "checkpoint %llu: %llu bytes a cut rep string instruction stored ahead of its registers set",
                 (unsigned long long)at.value, (unsigned long long)ahead_bytes);
  for (const XsaveArea& a : settle.xsave_areas) TRY(set_recorded(a.start, a.size, "XSAVE area"));
  out_.xsave_areas_settled += settle.xsave_areas.size();
  for (const AddressRange& w : cut_writes) {
    std::vector<uint8_t> bytes(w.end - w.begin);
    if (!recorded_image(w.begin, bytes).ok()) continue;  // left as read (overlay_recorded)
    TRY_CTX(task.write_memory(RemoteAddr(w.begin), bytes), "writing what a cut call wrote at " + hex(w.begin));
  }
  if (!cut_writes.empty())
    SLSDBG_DEBUG("replay", "checkpoint %llu: %zu ranges written by calls it cut set to the recorded bytes",
                 (unsigned long long)at.value, cut_writes.size());
  if (!settle.dead_runs.empty() || !settle.xsave_areas.empty())
    SLSDBG_DEBUG("replay", "checkpoint %llu: %zu dead stack runs and %zu XSAVE areas set to the recorded bytes",
                 (unsigned long long)at.value, settle.dead_runs.size(), settle.xsave_areas.size());
  return true;
}

// A word is learnt only outside every thread's dead stack: it must hold its
// recorded value at the true visit, or the patch would run past it.
void SegmentCheck::note_differing_word(uint64_t vaddr, std::span<const uint8_t> live,
                                       std::span<const uint8_t> recorded, std::span<const AddressRange> dead,
                                       const ImageReader& live_image, const ImageReader& recorded_image) {
  std::optional<AddressRange> here;
  for (const AddressRange& r : dead)
    if (r.begin < vaddr + kPageSize && r.end > vaddr) here = r;
  last_word_ = real_differing_word(vaddr, live, recorded, here, live_image, recorded_image);
  if (!last_word_) return;
  for (const AddressRange& r : dead)
    if (r.begin < last_word_->addr + 8 && r.end > last_word_->addr) last_word_.reset();
}

Result<SegmentOutcome> SegmentCheck::run() {
  events_ = TRY_CTX(reader_.segment_events(SegmentId(k_.value)), "reading segment " + std::to_string(k_.value));
  const uint64_t total = reader_.checkpoints().size();
  const bool has_next = k_.value + 1 < total;
  const bool logs_exit = std::any_of(events_.begin(), events_.end(),
                                     [](const store::Event& e) { return e.kind == store::EventKind::Exit; });
  if (!observer_ && !has_next && (!logs_exit || (events_.size() == 1 && events_[0].signo == SIGKILL))) {
    out_.end = SegmentEnd::EndOfHistory;
    out_.cut_short = true;
    return out_;
  }
  state_ = TRY(reader_.process_state(k_));
  TRY_CTX(restore(), "restoring checkpoint " + std::to_string(k_.value));
  cur_ = state_.running_tid ? find(state_.running_tid) : nullptr;
  if (state_.threads.size() == 1) cur_ = &threads_.front();
  for (const store::ThreadState& t : state_.threads)
    SLSDBG_DEBUG("replay", "checkpoint %llu: thread %d at %s%s%s", (unsigned long long)k_.value, t.tid.value,
                 hex(t.regs.rip).c_str(), t.restarted_syscall ? " (before its call)" : "",
                 t.tid.value == state_.running_tid ? " (running)" : "");
  // A thread whose first event is a re-sent signal logged after another
  // thread's took it at its first stop, before going back into a call
  // (signal_before_call.h): queued before it runs (the running one's after
  // the stub below, which it would interrupt).
  std::vector<Tid> all;
  for (const Thread& t : threads_) all.push_back(t.recorded);
  const std::vector<size_t> later_signals = signals_before_reissue(events_, all);
  auto queue_later = [&](bool running) -> Status {
    for (size_t i : later_signals) {
      Thread* th = find(events_[i].tid.value);
      if (th && (th == cur_) == running && syscall(SYS_tgkill, leader_->tgid(), th->task.raw_tid(), events_[i].signo) != 0)
        return Error::from_errno("tgkill");
    }
    return ok_status();
  };
  TRY(queue_later(false));
  // What tells a tick's switch from one at a call (below).
  const bool tick_checkpoint = reader_.checkpoints()[k_.value].reason == "tick";
  std::set<int32_t> cut_in_call;
  for (const store::ThreadState& t : state_.threads)
    if (t.restarted_syscall) cut_in_call.insert(t.tid.value);
  // Threads a checkpoint cut inside a call went back into it right after.
  for (size_t i = 0; i < state_.threads.size(); i++) {
    Thread& th = threads_[i];
    if (!state_.threads[i].restarted_syscall || &th == cur_) continue;
    TRY(wait_pending(th));
    if (th.at != Thread::At::Pending)
      return Error::msg("thread " + std::to_string(th.recorded.value) + " did not re-enter its call");
    // A signal queued for it first stays pending until the log delivers it.
    if (th.stop.kind == process::StopKind::PtraceEvent) th.at = Thread::At::InCall;
  }
  if (!events_.empty() && events_[0].kind == store::EventKind::Signal && cur_)
    TRY_CTX(process::run_injected_stub(cur_->task, process::sigaction_dump_stub(), [](user_regs_struct&) {}),
            "matching the recorder's last trap");
  TRY(queue_later(true));

  for (; cursor_ < events_.size(); cursor_++) {
    const store::Event& ev = events_[cursor_];
    SLSDBG_DEBUG("replay", "segment %llu event %zu/%zu: %s", (unsigned long long)k_.value, cursor_, events_.size(),
                 describe(ev).c_str());
    if (ev.kind == store::EventKind::ForcedCheckpoint) {
      out_.end = SegmentEnd::ReachedByRestore;
      return out_;
    }
    if (ev.kind == store::EventKind::Exit) {
      if (observer_) {
        TRY(observer_->at_history_end(&ev));
        out_.end = SegmentEnd::EndOfHistory;
        return out_;
      }
      if (!TRY(process_exit(ev))) return out_;
      out_.events_replayed++;
      return out_;
    }
    if (ev.kind == store::EventKind::ThreadSwitch) switched_ = true;
    if (ev.kind == store::EventKind::ThreadSwitch && cur_ && cur_->recorded == ev.tid) {
      // Back to the thread that ran before a stretch where none did (its call returned first).
      out_.events_replayed++;
      continue;
    }
    if (ev.kind == store::EventKind::ThreadSwitch) {
      // The current thread gave way at a call that may block, unless the
      // switch is a tick's, right after the checkpoint (it has not run).
      // The recorder switches at a tick checkpoint only, and only to a
      // parked thread, never to one the checkpoint cut inside a call
      // (those go back in first): any other switch follows a call of the
      // current thread, even as the segment's first event.
      const bool tick_switch = tick_checkpoint && cut_in_call.count(ev.tid.value) == 0;
      if (cur_ && (cur_->at == Thread::At::Resumed ||
                   (cur_->at == Thread::At::Stopped && (!cur_->fresh || cur_->scheduled || !tick_switch))))
        TRY(wait_pending(*cur_));
      if (cur_ && cur_->at == Thread::At::Pending) {
        if (cur_->stop.kind != process::StopKind::PtraceEvent) {
          user_regs_struct r = TRY(cur_->task.regs());
          {
            diverge(r.rip, describe(ev), "a signal stop of thread " + std::to_string(cur_->recorded.value));
            return out_;
          }
        }
        cur_->at = Thread::At::InCall;  // gave way at a call that may block
      }
      Thread* next = find(ev.tid.value);
      if (!next || next->at == Thread::At::Gone) {
            diverge(0, describe(ev), "no such thread");
            return out_;
          }
      cur_ = next;
      cur_->scheduled = true;
      out_.events_replayed++;
      continue;
    }
    Thread* th = find(ev.tid.value);
    if (th && TRY(done_at_checkpoint(*th, ev))) {
      out_.events_replayed++;
      continue;
    }
    if (!th) {
            diverge(0, describe(ev), "no thread " + std::to_string(ev.tid.value));
            return out_;
          }
    bool ok;
    if (th == cur_ || th->at == Thread::At::Stopped || th->at == Thread::At::Resumed ||
        (th->at == Thread::At::Pending && th->stop.kind == process::StopKind::SignalDelivery)) {
      // Not only the running thread: a signal the recorder delivered to a
      // waiting thread is taken at its first stop, and a thread the recorder
      // counted as in the kernel when a checkpoint stopped it at its exit
      // stop runs on to its next call.
      ok = TRY(serve_own(*th, ev));
    } else if (th->at == Thread::At::InCall || (th->at == Thread::At::Pending &&
                                               th->stop.kind == process::StopKind::PtraceEvent)) {
      ok = TRY(serve_call(*th, ev));  // a call that was in the kernel while another ran
    } else {
      ok = diverge(0, describe(ev), "thread " + std::to_string(ev.tid.value) + " is not in a call");
    }
    if (!ok) return out_;
    out_.events_replayed++;
    if (auto it = exits_after_.find(cursor_); it != exits_after_.end())
      for (Thread* t : it->second) TRY(finish_exit(*t));
    if (cursor_ + 1 < events_.size() && events_[cursor_ + 1].kind == store::EventKind::ForcedCheckpoint) {
      out_.end = SegmentEnd::ReachedByRestore;
      return out_;
    }
  }
  if (!has_next && observer_) {
    TRY(observer_->at_history_end(nullptr));
    out_.end = SegmentEnd::EndOfHistory;
    return out_;
  }
  if (!has_next) return Error::msg("segment " + std::to_string(k_.value) + ": the log ends without an exit");
  for (Thread& t : threads_)
    if (!t.exit_at_checkpoint) TRY(finish_exit(t));
  if (!TRY(reach_next())) {
    if (out_.head_missed) return out_;
    if (!out_.divergence)
      diverge(0, "checkpoint " + std::to_string(k_.value + 1) + "'s memory", "different memory with equal registers");
    return out_;
  }
  out_.end = SegmentEnd::ReachedByExecution;
  return out_;
}

}  // namespace

Result<SegmentOutcome> replay_threaded_segment(const store::RecordingReader& reader, CheckpointId k,
                                               SegmentObserver& observer) {
  // The perf breakpoint reaches ticks here unless the observer allows the
  // patch (a debugger's int3 bytes may sit where its jump would go).
  SegmentCheck segment(reader, k, ThreadTarget::Via::Conditional, &observer);
  return segment.run();
}

Result<CheckReport> check_threaded_recording(const store::RecordingReader& reader,
                                             const std::function<void(uint64_t, uint64_t)>& progress) {
  CheckReport report;
  const uint64_t total = reader.checkpoints().size();
  report.checkpoints = total;
  if (total == 0) return Error::msg("the recording has no checkpoint");
  for (uint64_t k = 0; k < total; k++) {
    // A run that failed after arming its last stretch is replayed again
    // with the next way (thread_reach.h): patch, perf breakpoint, debug register.
    ThreadTarget::Via first = ThreadTarget::Via::Patch;
    uint64_t reruns = 0;
    Result<SegmentOutcome> run = Error::msg("not run");
    for (;;) {
      SegmentCheck segment(reader, CheckpointId(k), first);
      run = segment.run();
      const bool failed = !run.ok() || run->end == SegmentEnd::Diverged;
      const std::optional<ThreadTarget::Via> via = segment.armed();
      if (!failed || !via || *via == ThreadTarget::Via::DebugRegister) break;
      SLSDBG_DEBUG("replay", "segment %llu: the run with the %s failed (%s); again with the next way",
                   (unsigned long long)k, *via == ThreadTarget::Via::Patch ? "patched breakpoint" : "perf breakpoint",
                   run.ok() ? (run->divergence ? run->divergence->describe().c_str() : "diverged") : run.error().message.c_str());
      first = *via == ThreadTarget::Via::Patch ? ThreadTarget::Via::Conditional : ThreadTarget::Via::DebugRegister;
      reruns++;
    }
    SegmentOutcome out = TRY_CTX(std::move(run), "segment " + std::to_string(k));
    out.reruns += reruns;
    report.segments_rerun += reruns;
    report.events_replayed += out.events_replayed;
    report.pages_compared += out.pages_compared;
    if (out.patched) report.reached_patched++;
    switch (out.end) {
      case SegmentEnd::ReachedByExecution: report.crossed_by_execution++; break;
      case SegmentEnd::ReachedByRestore: report.crossed_by_restore++; break;
      case SegmentEnd::Diverged:
        if (!out.divergence) return Error::msg("internal: segment " + std::to_string(k) + " diverged without a report");
        report.divergence = out.divergence;
        return report;
      case SegmentEnd::EndOfHistory:
        report.end_checkpoint = k;
        report.cut_short = out.cut_short;
        return report;
      case SegmentEnd::Paused: return Error::msg("internal: a threaded check paused");
    }
    if (progress) progress(k + 1, total);
  }
  return Error::msg("the recording ends without its history's end");
}

}  // namespace slsdbg::replay
