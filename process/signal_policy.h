// Which signals are asynchronous (held until right after a checkpoint) and
// what the kernel would do to a syscall a signal interrupted, so a checkpoint
// taken at that instant holds the state the application will really see.
#pragma once

#include <signal.h>
#include <sys/user.h>

#include <array>
#include <cstdint>

#include "store/process_state.h"

namespace slsdbg::process {

enum class SignalTiming { Synchronous, Asynchronous };

// Synchronous: caused by the instruction at pc (a fault, a trap, SIGSYS).
// Everything else (kill, sigqueue, timers, SIGPIPE, SIGCHLD...) is async.
SignalTiming classify_signal(const siginfo_t& info);

// The tracee's signal dispositions as its rt_sigaction calls set them.
class Dispositions {
 public:
  struct Action {
    uint64_t handler = 0;  // SIG_DFL = 0, SIG_IGN = 1
    uint64_t flags = 0;
  };
  void set(int signo, Action a) {
    if (signo >= 1 && signo <= 64) actions_[signo - 1] = a;
  }
  Action get(int signo) const { return signo >= 1 && signo <= 64 ? actions_[signo - 1] : Action{}; }
  // True when delivering `signo` runs a user handler.
  bool runs_handler(int signo) const { return get(signo).handler > 1; }

 private:
  std::array<Action, 64> actions_{};
};

// Kernel-internal restart codes (include/linux/errno.h), never seen by
// applications but visible to a tracer in rax.
inline constexpr int64_t kErestartSys = -512;
inline constexpr int64_t kErestartNoIntr = -513;
inline constexpr int64_t kErestartNoHand = -514;
inline constexpr int64_t kErestartRestartBlock = -516;
inline bool is_restart_code(int64_t v) { return v <= kErestartSys && v >= kErestartRestartBlock; }

enum class RestartOutcome {
  NotInSyscall,        // regs are not an interrupted syscall; nothing to do
  Restart,             // rewound to re-issue the syscall (pc -= 2, rax = nr)
  ReturnEintr,         // rax = -EINTR, as the kernel does before a handler
  KernelRestartBlock,  // needs the kernel's restart block; left untouched
};

// `regs` are those of a thread stopped in user mode right after a syscall was
// interrupted (rax = -ERESTART*, orig_rax = nr). Applies what the kernel does
// when `signo` (0 = no signal, e.g. our own interrupt) is delivered next, and
// sets orig_rax = -1 so the kernel does not do it a second time.
RestartOutcome settle_interrupted_syscall(user_regs_struct& regs, int signo, const Dispositions& dispositions);

// Waits the kernel ends with a bare -EINTR, not a restart code, when any
// stop interrupts them, a tracer's PTRACE_INTERRUPT included (epoll_wait(2),
// sigtimedwait(2): "interrupted by a signal" also after a stop). A thread
// the recorder cut in one must go back into it with the time it has left.
enum class EintrWait {
  None,         // not such a call, or it does not wait (timeout 0)
  Forever,      // no timeout: issued again as it was
  MillisArg3,   // epoll_wait/epoll_pwait: an int of milliseconds in args[3]
  TimespecPtr,  // a struct timespec it points at (rt_sigtimedwait, epoll_pwait2)
};
EintrWait eintr_wait_kind(long nr, const std::array<uint64_t, 6>& args);
// Which argument holds such a wait's timeout: 2 for rt_sigtimedwait, else 3.
int eintr_wait_timeout_arg(long nr);

// A signal the kernel throws away when it is sent, unless the receiver is
// ptraced: its disposition is SIG_IGN, or SIG_DFL with "ignore" as the
// default action (SIGCHLD, SIGURG, SIGWINCH; not SIGCONT, whose effect
// comes at sending). Under ptrace it is queued and reported anyway, and
// may interrupt a blocking call, which the kernel restarts when the tracer
// suppresses it: as if it had never come. `regs` are the receiver's at
// its signal-delivery stop; a call cut with the kernel's restart block
// (-ERESTART_RESTARTBLOCK) comes back as restart_syscall, which replay
// cannot re-issue, so that signal is not thrown away here.
bool kernel_discards(int signo, const Dispositions& dispositions, const user_regs_struct& regs);

// A signal that reaches the stopped tracee while a checkpoint is captured
// sits in its pending set, but the recorder sees it at the next resumption
// (a signal-delivery stop), holds it and logs its delivery after a checkpoint
// of its own. Kept in this checkpoint too, replay would deliver it once more
// right after restoring it. So only what some thread blocks stays pending:
// a thread's own signals its mask blocks, process-wide ones every thread blocks.
void drop_deliverable_pending(store::ProcessState& st);

}  // namespace slsdbg::process
