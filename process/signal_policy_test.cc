// Checks the signal policy: faults are synchronous and kill()/timers are not,
// and an interrupted syscall is settled the way the kernel settles it
// (restart, EINTR, or left to the kernel's restart block).
#include "process/signal_policy.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>

#include <cstring>

namespace slsdbg::process {
namespace {

siginfo_t info(int signo, int code) {
  siginfo_t si;
  std::memset(&si, 0, sizeof si);
  si.si_signo = signo;
  si.si_code = code;
  return si;
}

TEST(SignalPolicy, FaultsAreSynchronousEverythingElseIsNot) {
  EXPECT_EQ(classify_signal(info(SIGSEGV, SEGV_MAPERR)), SignalTiming::Synchronous);
  EXPECT_EQ(classify_signal(info(SIGFPE, FPE_INTDIV)), SignalTiming::Synchronous);
  EXPECT_EQ(classify_signal(info(SIGSEGV, SI_USER)), SignalTiming::Asynchronous);
  EXPECT_EQ(classify_signal(info(SIGALRM, SI_KERNEL)), SignalTiming::Asynchronous);
  EXPECT_EQ(classify_signal(info(SIGUSR1, SI_TKILL)), SignalTiming::Asynchronous);
}

user_regs_struct interrupted(long nr, int64_t code) {
  user_regs_struct r{};
  r.orig_rax = nr;
  r.rax = static_cast<uint64_t>(code);
  r.rip = 0x401002;
  return r;
}

TEST(SignalPolicy, NoSignalRestartsTheSyscall) {
  Dispositions d;
  user_regs_struct r = interrupted(SYS_read, -512);
  EXPECT_EQ(settle_interrupted_syscall(r, 0, d), RestartOutcome::Restart);
  EXPECT_EQ(r.rip, 0x401000u);
  EXPECT_EQ(r.rax, static_cast<uint64_t>(SYS_read));
  EXPECT_EQ(static_cast<int64_t>(r.orig_rax), -1);
}

TEST(SignalPolicy, HandlerWithoutSaRestartGetsEintr) {
  Dispositions d;
  d.set(SIGALRM, {0x401500, 0});
  user_regs_struct r = interrupted(SYS_read, -512);
  EXPECT_EQ(settle_interrupted_syscall(r, SIGALRM, d), RestartOutcome::ReturnEintr);
  EXPECT_EQ(static_cast<int64_t>(r.rax), -EINTR);
  EXPECT_EQ(r.rip, 0x401002u);
  user_regs_struct p = interrupted(SYS_pause, -514);
  EXPECT_EQ(settle_interrupted_syscall(p, SIGALRM, d), RestartOutcome::ReturnEintr);
}

TEST(SignalPolicy, HandlerWithSaRestartRestarts) {
  Dispositions d;
  d.set(SIGALRM, {0x401500, SA_RESTART});
  user_regs_struct r = interrupted(SYS_read, -512);
  EXPECT_EQ(settle_interrupted_syscall(r, SIGALRM, d), RestartOutcome::Restart);
}

TEST(SignalPolicy, RestartBlockWithoutHandlerIsLeftToTheKernel) {
  Dispositions d;
  user_regs_struct r = interrupted(SYS_nanosleep, -516);
  EXPECT_EQ(settle_interrupted_syscall(r, 0, d), RestartOutcome::KernelRestartBlock);
  EXPECT_EQ(static_cast<int64_t>(r.rax), -516);
}

TEST(SignalPolicy, OrdinaryRegistersAreUntouched) {
  Dispositions d;
  user_regs_struct r = interrupted(-1, 42);
  EXPECT_EQ(settle_interrupted_syscall(r, SIGALRM, d), RestartOutcome::NotInSyscall);
  user_regs_struct done = interrupted(SYS_read, 5);
  EXPECT_EQ(settle_interrupted_syscall(done, 0, d), RestartOutcome::NotInSyscall);
}

TEST(SignalPolicy, ACheckpointKeepsOnlyBlockedPendingSignals) {
  store::ProcessState st;
  st.threads.resize(2);
  st.threads[0].sigmask = (1ull << (SIGUSR1 - 1)) | (1ull << (SIGUSR2 - 1));
  st.threads[0].sigpending = (1ull << (SIGUSR1 - 1)) | (1ull << (SIGALRM - 1));
  st.threads[1].sigmask = 1ull << (SIGUSR2 - 1);
  st.shared_sigpending = (1ull << (SIGUSR2 - 1)) | (1ull << (SIGUSR1 - 1)) | (1ull << (SIGTERM - 1));
  drop_deliverable_pending(st);
  EXPECT_EQ(st.threads[0].sigpending, 1ull << (SIGUSR1 - 1));  // blocked: stays; SIGALRM arrived during capture
  EXPECT_EQ(st.shared_sigpending, 1ull << (SIGUSR2 - 1));      // SIGUSR1 is deliverable to thread 1
}

TEST(SignalPolicy, OnlyIgnoredSignalsAreDiscarded) {
  Dispositions d;
  d.set(SIGUSR1, {1, 0});       // SIG_IGN
  d.set(SIGURG, {0x401000, 0});  // a handler
  const user_regs_struct running = interrupted(-1, 0);
  EXPECT_TRUE(kernel_discards(SIGCHLD, d, running));   // SIG_DFL: ignore
  EXPECT_TRUE(kernel_discards(SIGWINCH, d, running));
  EXPECT_TRUE(kernel_discards(SIGUSR1, d, running));   // SIG_IGN
  EXPECT_FALSE(kernel_discards(SIGURG, d, running));   // its handler runs
  EXPECT_FALSE(kernel_discards(SIGCONT, d, running));  // SIG_DFL, but it has an effect
  EXPECT_FALSE(kernel_discards(SIGALRM, d, running));  // SIG_DFL: terminate
  EXPECT_FALSE(kernel_discards(SIGKILL, d, running));
  // A futex wait it cut restarts by itself; a sleep's restart block does not.
  EXPECT_TRUE(kernel_discards(SIGCHLD, d, interrupted(SYS_futex, -512)));
  EXPECT_FALSE(kernel_discards(SIGCHLD, d, interrupted(SYS_nanosleep, -516)));
}

TEST(SignalPolicy, WaitsEndedByAnyStopAndTheirTimeouts) {
  const auto args = [](uint64_t a2, uint64_t a3) { return std::array<uint64_t, 6>{3, 0x1000, a2, a3, 0, 8}; };
  EXPECT_EQ(eintr_wait_kind(SYS_epoll_wait, args(1, 100)), EintrWait::MillisArg3);
  EXPECT_EQ(eintr_wait_kind(SYS_epoll_pwait, args(1, static_cast<uint32_t>(-1))), EintrWait::Forever);
  EXPECT_EQ(eintr_wait_kind(SYS_epoll_wait, args(1, 0)), EintrWait::None);  // a poll, never cut
  // Only the low 32 bits are the int timeout (the upper half is whatever the register held).
  EXPECT_EQ(eintr_wait_kind(SYS_epoll_wait, args(1, 0xdead00000064ull)), EintrWait::MillisArg3);
  EXPECT_EQ(eintr_wait_kind(SYS_epoll_pwait2, args(1, 0)), EintrWait::Forever);
  EXPECT_EQ(eintr_wait_kind(SYS_epoll_pwait2, args(1, 0x7ffc0000)), EintrWait::TimespecPtr);
  EXPECT_EQ(eintr_wait_kind(SYS_rt_sigtimedwait, args(0, 0)), EintrWait::Forever);  // sigwait()
  EXPECT_EQ(eintr_wait_kind(SYS_rt_sigtimedwait, args(0x7ffc0000, 0)), EintrWait::TimespecPtr);
  EXPECT_EQ(eintr_wait_kind(SYS_nanosleep, args(0, 0)), EintrWait::None);  // restart_syscall's
  EXPECT_EQ(eintr_wait_kind(SYS_read, args(1, 100)), EintrWait::None);
}

}  // namespace
}  // namespace slsdbg::process
