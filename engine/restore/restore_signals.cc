// Signal handlers (rt_sigaction with the recorded sa_restorer), pending
// signals and the blocked mask. Pending signals are re-raised while every
// signal is blocked, so they stay pending exactly as recorded and are
// delivered when the restored process unblocks or resumes; their siginfo
// becomes that of kill(2)/tgkill(2) (the recording keeps only the set).
//
// The recorder holds an asynchronous signal until right after a checkpoint
// and delivers it then, logging the delivery as the first event(s) of the
// segment: such a signal belongs to no pending set of the checkpoint. It is
// queued here with its recorded siginfo (rt_tgsigqueueinfo, from inside the
// process so any si_code is allowed), so a resumed process receives it as the
// recorded one did. Synchronous faults are not queued: re-execution raises them.
#include <signal.h>
#include <sys/syscall.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "engine/restore/restore_steps.h"
#include "process/inject.h"
#include "process/signal_frame.h"

namespace slsdbg::restore {

namespace {

bool is_default(const store::SignalAction& a) { return a.handler == 0 && a.flags == 0 && a.mask == 0; }

// Each thread's alternate signal stack (sigaltstack): an SA_ONSTACK
// handler's frame goes there, as it did while recording.
Status restore_alt_stacks(RemoteCalls& rc, const store::ProcessState& state,
                          const std::map<int32_t, process::Task*>& live_tids, RestoreReport& report) {
  for (const store::ThreadState& t : state.threads) {
    if (t.altstack_flags & SS_DISABLE) continue;
    auto to = live_tids.find(t.tid.value);
    if (to == live_tids.end()) continue;  // a thread not restored
    process::Task* target = to->second;
    stack_t ss{};
    ss.ss_sp = reinterpret_cast<void*>(t.altstack_sp);
    ss.ss_size = t.altstack_size;
    ss.ss_flags = t.altstack_flags;
    rc.reset_scratch();
    const uint64_t at = TRY(rc.put(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&ss), sizeof ss)));
    const int64_t r = target == &rc.task() ? TRY(rc.raw(SYS_sigaltstack, at, 0))
                                           : TRY(process::inject_syscall(*target, SYS_sigaltstack, {at, 0, 0, 0, 0, 0}));
    if (r < 0)
      report.warnings.push_back("thread " + std::to_string(t.tid.value) + "'s alternate signal stack not restored: " +
                                std::strerror(int(-r)));
  }
  return ok_status();
}

bool is_synchronous_fault(const siginfo_t& si) {
  bool fault_signal = si.si_signo == SIGSEGV || si.si_signo == SIGBUS || si.si_signo == SIGILL ||
                      si.si_signo == SIGFPE || si.si_signo == SIGTRAP || si.si_signo == SIGSYS;
  return fault_signal && si.si_code > 0 && si.si_code != SI_KERNEL;
}

}  // namespace

Status restore_signals(RemoteCalls& rc, const store::ProcessState& state, const std::vector<store::Event>& deliveries,
                       const std::map<int32_t, process::Task*>& live_tids, RestoreReport& report) {
  // Every handler in one stop (RemoteCalls::batch_raw).
  rc.reset_scratch();
  std::vector<int> signos;
  std::vector<process::InjectedCall> calls;
  for (int signo = 1; signo <= 64; signo++) {
    if (signo == SIGKILL || signo == SIGSTOP) continue;
    const store::SignalAction& a = state.sigactions[size_t(signo - 1)];
    if (is_default(a)) continue;
    process::KernelSigaction k{a.handler, a.flags, a.restorer, a.mask};
    const uint64_t at = TRY(rc.put(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&k), sizeof k)));
    signos.push_back(signo);
    calls.push_back({SYS_rt_sigaction, {uint64_t(signo), at, 0, 8, 0, 0}});
  }
  const std::vector<int64_t> set = TRY(rc.batch_raw(calls));
  for (size_t i = 0; i < set.size(); i++)
    if (set[i] < 0 && set[i] > -4096)
      report.warnings.push_back("handler of signal " + std::to_string(signos[i]) + " not restored: rt_sigaction: " +
                                std::strerror(int(-set[i])));
  rc.reset_scratch();

  TRY(restore_alt_stacks(rc, state, live_tids, report));

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
  for (const store::Event& ev : deliveries) {
    siginfo_t si{};
    std::memcpy(&si, ev.siginfo.data(), std::min(ev.siginfo.size(), sizeof si));
    if (ev.siginfo.size() < sizeof si || is_synchronous_fault(si)) continue;
    rc.reset_scratch();
    uint64_t at = TRY(rc.put(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&si), sizeof si)));
    // The kernel takes a kill()/tgkill() si_code only from the target
    // thread itself: another thread queues it through its own injection.
    auto to = live_tids.find(ev.tid.value);
    process::Task* target = to == live_tids.end() ? &rc.task() : to->second;
    const std::array<uint64_t, 6> args{uint64_t(pid), uint64_t(target->tid().value), uint64_t(ev.signo), at, 0, 0};
    int64_t r = target == &rc.task() ? TRY(rc.raw(SYS_rt_tgsigqueueinfo, args[0], args[1], args[2], args[3]))
                                     : TRY(process::inject_syscall(*target, SYS_rt_tgsigqueueinfo, args));
    if (r < 0)
      report.warnings.push_back("signal " + std::to_string(ev.signo) + " delivered right after the checkpoint not queued: " +
                                std::strerror(int(-r)));
  }
  return rc.task().set_signal_mask(t.sigmask);
}

}  // namespace slsdbg::restore
