// The threads of the recorded process (record --threads) and which one may
// run. One thread executes user code at a time (DESIGN.md: one task runs at a
// time); the others are either parked in a ptrace stop, waiting to be
// scheduled, or inside a syscall that may block, where they execute nothing
// of the program until their syscall-exit stop, at which they park. The
// running thread gives way at a syscall that may block and at a tick; both
// are points the log determines (a ThreadSwitch event names the next one).
#pragma once

#include <sys/ptrace.h>
#include <sys/types.h>

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "process/syscalls/model.h"
#include "recorder/record/cut_wait.h"

namespace slsdbg::recorder {

// A syscall after which the running thread gives way: one that may wait for
// another thread of the program (futex, a pipe, a sleep, sched_yield).
bool may_block(long nr, const std::array<uint64_t, 6>& args);

// The kernel's clear_child_tid that a finished call set: set_tid_address
// sets the caller's, a clone/clone3 of a thread with CLONE_CHILD_CLEARTID
// the new thread's (clone3 reads it from struct clone_args in `mem`).
// {tid, address}; nullopt for other calls. Restore needs it (ptrace cannot
// read it) so that pthread_join of a restored thread returns.
std::optional<std::pair<pid_t, uint64_t>> clear_child_tid_set_by(pid_t caller, long nr,
                                                                 const std::array<uint64_t, 6>& args,
                                                                 int64_t result, const process::RemoteReader& mem);

// Whether stopped thread `tid` sits right before a `syscall` instruction
// that re-issues its call (rax = orig number, rewound by the recorder):
// resumed, it executes nothing else before its seccomp stop.
bool rewound_before_syscall(pid_t tid);

// Whether `tid` is a thread of process `tgid` (/proc/TGID/task/TID exists).
bool is_thread_of(pid_t tid, pid_t tgid);

struct ThreadCtx {
  enum class Where { Parked, Running, InKernel };
  Where where = Where::Parked;
  // The loop's per-thread fields, saved while another thread is handled.
  bool in_syscall = false;
  long nr = -1;
  std::array<uint64_t, 6> args{};
  bool interrupt_requested = false;
  bool restarted_for_checkpoint = false;
  // How a parked thread is resumed when it is scheduled.
  __ptrace_request resume_request = PTRACE_CONT;
  int resume_signo = 0;
  // Parked at a syscall-exit stop whose syscall a ptrace interrupt cut
  // (restart code or EINTR in rax): a checkpoint stores it as just before
  // the syscall, and it goes back into the kernel after the checkpoint.
  bool cut_syscall = false;
  // The cut call was a sleep the kernel goes on with through
  // restart_syscall (-ERESTART_RESTARTBLOCK: nanosleep, poll, a futex wait
  // with a timeout): resumed so, it waits out the time left; issued again,
  // it would wait its whole timeout from each tick (a livelock beside a
  // running thread when the timeout is longer than the interval).
  bool cut_restart_block = false;
  long restart_nr = -1;  // the call restart_syscall goes on with
  // The cut call was a wait the kernel ends with EINTR (epoll_wait): it
  // goes back in with the time it has left (cut_wait.h).
  CutWait cut_wait;
  // Its last stop was a syscall-entry stop (seccomp, clone event): a
  // PTRACE_SYSCALL from there runs only the kernel, up to the exit stop.
  bool at_entry = false;
  // Went into exit(): it never runs program code again, though its death
  // may be reported after another thread's next stops.
  bool exiting = false;
};

class ThreadSet {
 public:
  explicit ThreadSet(pid_t leader);
  bool has(pid_t tid) const { return threads_.count(tid) != 0; }
  size_t size() const { return threads_.size(); }
  size_t not_exiting() const;
  ThreadCtx& at(pid_t tid) { return threads_.at(tid); }
  // The thread group leader first, then by tid.
  std::vector<pid_t> tids() const;
  void add(pid_t tid);  // counts as in the kernel until its first stop
  void remove(pid_t tid);
  pid_t running() const { return running_; }  // -1: none (all are in a syscall)
  void set_running(pid_t tid);
  // The next parked thread after `after` in scheduling order, if any.
  std::optional<pid_t> next_parked(pid_t after) const;
  bool any_parked() const;
  size_t started() const { return started_; }
  // Who may execute program code right now, from the ptrace requests alone
  // (DESIGN.md: one task runs at a time). A resumption runs program code
  // unless it only finishes a syscall in the kernel (PTRACE_SYSCALL from a
  // syscall-entry stop), ends the thread, re-issues a rewound call, or
  // comes with a PTRACE_INTERRUPT that traps first. Returns the other
  // thread already running program code, if any: the recorder's flaw.
  std::optional<pid_t> note_resumed(pid_t tid, bool runs_program);
  void note_stopped(pid_t tid) { runs_program_.erase(tid); }
  size_t overlaps() const { return overlaps_; }
  // clear_child_tid per thread (clear_child_tid_set_by), 0 when unknown.
  void set_clear_child_tid(pid_t tid, uint64_t addr) { clear_child_tid_[tid] = addr; }
  uint64_t clear_child_tid(pid_t tid) const {
    auto it = clear_child_tid_.find(tid);
    return it == clear_child_tid_.end() ? 0 : it->second;
  }

 private:
  pid_t leader_;
  pid_t running_;
  std::map<pid_t, ThreadCtx> threads_;
  std::map<pid_t, uint64_t> clear_child_tid_;  // kept across remove(): tids are not reused while we trace
  size_t started_ = 1;
  std::set<pid_t> runs_program_;  // resumed into program code, no stop seen since
  size_t overlaps_ = 0;
};

}  // namespace slsdbg::recorder
