// Signal handlers (rt_sigaction with the recorded sa_restorer), pending
// signals and the blocked mask. Pending signals are re-raised while every
// signal is blocked, so they stay pending exactly as recorded and are
// delivered when the restored process unblocks or resumes; their siginfo
// becomes that of kill(2)/tgkill(2) (the recording keeps only the set).
#include <signal.h>
#include <sys/syscall.h>

#include <cstring>

#include "engine/restore/restore_steps.h"

namespace slsdbg::restore {

namespace {

struct KernelSigaction {  // the kernel's struct sigaction on x86-64
  uint64_t handler, flags, restorer, mask;
};

bool is_default(const store::SignalAction& a) { return a.handler == 0 && a.flags == 0 && a.mask == 0; }


}  // namespace

Status restore_signals(RemoteCalls& rc, const store::ProcessState& state, RestoreReport& report) {
  for (int signo = 1; signo <= 64; signo++) {
    if (signo == SIGKILL || signo == SIGSTOP) continue;
    const store::SignalAction& a = state.sigactions[size_t(signo - 1)];
    if (is_default(a)) continue;
    KernelSigaction k{a.handler, a.flags, a.restorer, a.mask};
    rc.reset_scratch();
    uint64_t at = TRY(rc.put(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&k), sizeof k)));
    int64_t r = TRY(rc.raw(SYS_rt_sigaction, uint64_t(signo), at, 0, 8));
    if (r < 0)
      report.warnings.push_back("handler of signal " + std::to_string(signo) + " not restored: rt_sigaction: " +
                                std::strerror(int(-r)));
  }

  const store::ThreadState& t = state.threads.front();
  pid_t tid = rc.task().tid().value;
  pid_t pid = rc.task().tgid();
  TRY(rc.task().set_signal_mask(~uint64_t(0)));
  auto raise_all = [&](uint64_t set, bool thread_directed) -> Status {
    for (int signo = 1; signo <= 64; signo++) {
      if (!(set & (uint64_t(1) << (signo - 1))) || signo == SIGKILL || signo == SIGSTOP) continue;
      int64_t r = thread_directed ? TRY(rc.raw(SYS_tgkill, uint64_t(pid), uint64_t(tid), uint64_t(signo)))
                                  : TRY(rc.raw(SYS_kill, uint64_t(pid), uint64_t(signo)));
      if (r < 0)
        report.warnings.push_back("pending signal " + std::to_string(signo) + " not restored: " + std::strerror(int(-r)));
    }
    return ok_status();
  };
  TRY(raise_all(state.shared_sigpending, false));
  TRY(raise_all(t.sigpending, true));
  return rc.task().set_signal_mask(t.sigmask);
}

}  // namespace slsdbg::restore
