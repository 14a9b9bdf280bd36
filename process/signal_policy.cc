#include "process/signal_policy.h"

#include <sys/syscall.h>

#include <cerrno>

namespace slsdbg::process {

SignalTiming classify_signal(const siginfo_t& info) {
  switch (info.si_signo) {
    case SIGSEGV:
    case SIGBUS:
    case SIGILL:
    case SIGFPE:
    case SIGTRAP:
    case SIGSYS:
      // Faults carry a positive si_code (or SI_KERNEL for #GP); a kill()
      // of the same signal carries SI_USER/SI_TKILL/SI_QUEUE (<= 0).
      return info.si_code > 0 ? SignalTiming::Synchronous : SignalTiming::Asynchronous;
    default:
      return SignalTiming::Asynchronous;
  }
}

RestartOutcome settle_interrupted_syscall(user_regs_struct& regs, int signo, const Dispositions& dispositions) {
  const int64_t orig = static_cast<int64_t>(regs.orig_rax);
  const int64_t rax = static_cast<int64_t>(regs.rax);
  if (orig < 0) return RestartOutcome::NotInSyscall;
  if (rax != kErestartSys && rax != kErestartNoIntr && rax != kErestartNoHand && rax != kErestartRestartBlock)
    return RestartOutcome::NotInSyscall;
  const bool handler = signo != 0 && dispositions.runs_handler(signo);
  bool restart = false;
  if (handler) {
    if (rax == kErestartNoIntr) restart = true;
    else if (rax == kErestartSys) restart = (dispositions.get(signo).flags & SA_RESTART) != 0;
  } else {
    if (rax == kErestartRestartBlock) return RestartOutcome::KernelRestartBlock;
    restart = true;
  }
  if (restart) {
    regs.rax = regs.orig_rax;
    regs.rip -= 2;
  } else {
    regs.rax = static_cast<uint64_t>(-EINTR);
  }
  regs.orig_rax = static_cast<uint64_t>(-1);
  return restart ? RestartOutcome::Restart : RestartOutcome::ReturnEintr;
}

bool kernel_discards(int signo, const Dispositions& dispositions, const user_regs_struct& regs) {
  if (signo < 1 || signo > 64 || signo == SIGKILL || signo == SIGSTOP) return false;
  const uint64_t handler = dispositions.get(signo).handler;
  const bool ignored_by_default = signo == SIGCHLD || signo == SIGURG || signo == SIGWINCH;
  if (handler != 1 && !(handler == 0 && ignored_by_default)) return false;
  const bool restart_block = static_cast<int64_t>(regs.orig_rax) >= 0 &&
                             static_cast<int64_t>(regs.rax) == kErestartRestartBlock;
  return !restart_block;
}

void drop_deliverable_pending(store::ProcessState& st) {
  uint64_t blocked_by_all = ~uint64_t{0};
  for (store::ThreadState& t : st.threads) {
    t.sigpending &= t.sigmask;
    blocked_by_all &= t.sigmask;
  }
  st.shared_sigpending &= st.threads.empty() ? 0 : blocked_by_all;
}

int eintr_wait_timeout_arg(long nr) { return nr == SYS_rt_sigtimedwait ? 2 : 3; }

EintrWait eintr_wait_kind(long nr, const std::array<uint64_t, 6>& args) {
  const uint64_t timeout = args[eintr_wait_timeout_arg(nr)];
  switch (nr) {
    case SYS_epoll_wait:
    case SYS_epoll_pwait: {
      const int ms = static_cast<int>(timeout);
      if (ms == 0) return EintrWait::None;
      return ms < 0 ? EintrWait::Forever : EintrWait::MillisArg3;
    }
    case SYS_epoll_pwait2:
    case SYS_rt_sigtimedwait:
      return timeout == 0 ? EintrWait::Forever : EintrWait::TimespecPtr;
    default:
      return EintrWait::None;
  }
}

}  // namespace slsdbg::process
