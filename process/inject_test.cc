// Checks injected syscalls on a real tracee: results are the tracee's own
// (getpid, mmap), registers are unchanged afterwards, and the task comes back
// in the kind of stop it was in (event, exec, seccomp, syscall-enter/-exit,
// signal-delivery), after which the program runs on correctly.
#include <gtest/gtest.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <cstring>

#include "process/inject.h"
#include "process/proc_maps.h"
#include "process/test_tracee.h"

namespace slsdbg::process {
namespace {

using testing::CommandTracee;

bool regs_equal(const user_regs_struct& a, const user_regs_struct& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(Inject, GetpidAndMmapAtAnEventStop) {
  auto t = CommandTracee::start();
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_TRUE(t->command("G").ok());
  Task& task = t->task();
  auto before = *task.regs();
  auto pid = inject_syscall(task, SYS_getpid, {});  // first one: patched pc
  ASSERT_TRUE(pid.ok()) << pid.error().message;
  EXPECT_EQ(*pid, t->pid());
  EXPECT_TRUE(regs_equal(before, *task.regs()));
  EXPECT_EQ(task.last_stop().kind, StopKind::PtraceEvent);
  EXPECT_EQ(task.last_stop().event, PTRACE_EVENT_STOP);

  ASSERT_OK(install_injection_page(task));
  auto addr = inject_syscall(task, SYS_mmap, {0, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                                              static_cast<uint64_t>(-1), 0});
  ASSERT_TRUE(addr.ok()) << addr.error().message;
  ASSERT_GT(*addr, 0);
  EXPECT_TRUE(regs_equal(before, *task.regs()));
  auto maps = *read_maps(t->pid());
  bool found = false, page = false;
  for (auto& m : maps) {
    if (m.start <= uint64_t(*addr) && uint64_t(*addr) + 3 * 4096 <= m.end && m.prot == (PROT_READ | PROT_WRITE)) found = true;
    if (m.start == kInjectPageAddr && m.prot == (PROT_READ | PROT_EXEC)) page = true;
  }
  EXPECT_TRUE(found);
  EXPECT_TRUE(page);
  // Failure comes back as -errno.
  auto bad = inject_syscall(task, SYS_close, {9999, 0, 0, 0, 0, 0});
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(*bad, -EBADF);
  // The program carries on normally.
  EXPECT_TRUE(t->command("M 2").ok());
}

// A batch runs its calls in order in one injection, each result the
// tracee's own, and stops at the first that fails: the calls after it do
// not run (the second mmap's region stays unmapped).
TEST(Inject, ABatchRunsInOrderUpToTheFirstFailure) {
  auto t = CommandTracee::start();
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_TRUE(t->command("G").ok());
  Task& task = t->task();
  ASSERT_OK(install_injection_page(task));
  auto before = *task.regs();
  auto table = inject_syscall(task, SYS_mmap, {0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                                               static_cast<uint64_t>(-1), 0});
  ASSERT_TRUE(table.ok() && *table > 0);
  const uint64_t want = 0x7e0000000000;
  const InjectedCall map_at{SYS_mmap, {want, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                                       static_cast<uint64_t>(-1), 0}};
  InjectedCall all[] = {{SYS_getpid, {}}, map_at, {SYS_getppid, {}}};
  auto ok = inject_syscalls(task, all, uint64_t(*table));
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  ASSERT_EQ(ok->size(), 3u);
  EXPECT_EQ((*ok)[0], t->pid());
  EXPECT_EQ(uint64_t((*ok)[1]), want);
  EXPECT_EQ((*ok)[2], getpid());
  EXPECT_TRUE(regs_equal(before, *task.regs()));
  // The same address again fails (EEXIST); the mmap after it must not run.
  InjectedCall failing[] = {{SYS_getpid, {}}, map_at, {SYS_mmap, {want + 0x10000, 4096, PROT_READ,
                                                                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                                                                  static_cast<uint64_t>(-1), 0}}};
  auto stopped = inject_syscalls(task, failing, uint64_t(*table));
  ASSERT_TRUE(stopped.ok()) << stopped.error().message;
  ASSERT_EQ(stopped->size(), 2u);
  EXPECT_EQ((*stopped)[1], -EEXIST);
  bool third = false;
  auto maps = read_maps(t->pid());
  ASSERT_TRUE(maps.ok());
  for (auto& m : *maps)
    if (m.start <= want + 0x10000 && want + 0x10000 < m.end) third = true;
  EXPECT_FALSE(third) << "a call after the failed one ran";
  EXPECT_TRUE(regs_equal(before, *task.regs()));
  EXPECT_TRUE(t->command("M 2").ok());
}

TEST(Inject, AtTheExecStop) {
  auto task = spawn_traced(SpawnOptions{{testing::fixture_path("capture_pages")}, {}, {}});
  ASSERT_TRUE(task.ok()) << task.error().message;
  auto before = *task->regs();
  ASSERT_OK(install_injection_page(*task));
  EXPECT_EQ(*inject_syscall(*task, SYS_getpid, {}), task->tgid());
  // execve has now returned (rax 0, no syscall in progress); everything else is as it was.
  auto after = *task->regs();
  EXPECT_EQ(after.rax, 0u);
  after.rax = before.rax;
  after.orig_rax = before.orig_rax;
  EXPECT_TRUE(regs_equal(before, after));
  EXPECT_EQ(task->last_stop().kind, StopKind::PtraceEvent);
  task->kill_and_reap();
}

TEST(Inject, ComesBackToTheSameSeccompStop) {
  SpawnOptions opts{{testing::fixture_path("capture_pages")}, {}, {}};
  int in[2], out[2];
  ASSERT_EQ(pipe(in), 0);
  ASSERT_EQ(pipe(out), 0);
  opts.in_child_before_exec = [&]() -> Status {
    dup2(in[0], 0);
    dup2(out[1], 1);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return Error::from_errno("prctl");
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    seccomp_rule_add(ctx, SCMP_ACT_TRACE(7), SCMP_SYS(getppid), 0);
    int rc = seccomp_load(ctx);
    if (rc != 0) return Error::from_errno("seccomp_load", -rc);
    return ok_status();
  };
  auto task = spawn_traced(opts);
  ASSERT_TRUE(task.ok()) << task.error().message;
  ASSERT_OK(install_injection_page(*task));
  // Write a `getppid` call ourselves: put rip at the code page's syscall with
  // rax = getppid would be allowed (page); instead, run the program's own
  // getppid through a patched instruction at a scratch address.
  const uint8_t code[] = {0x0f, 0x05, 0xcc};
  ASSERT_TRUE(task->write_memory(RemoteAddr(kInjectScratchAddr + 2048), code).ok());
  ASSERT_EQ(*inject_syscall(*task, SYS_mprotect, {kInjectScratchAddr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, 0, 0, 0}), 0);
  auto saved = *task->regs();
  user_regs_struct r = saved;
  r.rip = kInjectScratchAddr + 2048;
  r.rax = SYS_getppid;
  ASSERT_TRUE(task->set_regs(r).ok());
  ASSERT_TRUE(task->cont().ok());
  auto w = task->wait();
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(w->kind, StopKind::PtraceEvent);
  ASSERT_EQ(w->event, PTRACE_EVENT_SECCOMP);
  auto at_seccomp = *task->regs();
  EXPECT_EQ(*inject_syscall(*task, SYS_getpid, {}), task->tgid());
  EXPECT_EQ(task->last_stop().event, PTRACE_EVENT_SECCOMP);
  EXPECT_TRUE(regs_equal(at_seccomp, *task->regs()));
  auto info = task->syscall_info();
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->op, PTRACE_SYSCALL_INFO_SECCOMP);
  EXPECT_EQ(info->seccomp.nr, static_cast<uint64_t>(SYS_getppid));
  // Let getppid run; it returns our pid (the tracee's parent) at the int3.
  ASSERT_TRUE(task->cont().ok());
  w = task->wait();
  ASSERT_EQ(w->kind, StopKind::SignalDelivery);
  ASSERT_EQ(w->signo, SIGTRAP);
  EXPECT_EQ(static_cast<pid_t>(task->regs()->rax), getpid());
  task->kill_and_reap();
  close(in[0]); close(in[1]); close(out[0]); close(out[1]);
}

TEST(Inject, ComesBackToSyscallEnterAndExitStops) {
  auto t = CommandTracee::start();
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_TRUE(t->command("G").ok());
  Task& task = t->task();
  ASSERT_OK(install_injection_page(task));
  // The tracee sits in read(); interrupting restarts it: PTRACE_SYSCALL shows the entry.
  ASSERT_TRUE(task.syscall().ok());
  auto w = task.wait();
  ASSERT_EQ(w->kind, StopKind::SyscallStop);
  ASSERT_EQ(task.syscall_info()->op, PTRACE_SYSCALL_INFO_ENTRY);
  auto at_entry = *task.regs();
  EXPECT_EQ(*inject_syscall(task, SYS_getpid, {}), t->pid());
  EXPECT_EQ(task.last_stop().kind, StopKind::SyscallStop);
  EXPECT_EQ(task.syscall_info()->op, PTRACE_SYSCALL_INFO_ENTRY);
  EXPECT_TRUE(regs_equal(at_entry, *task.regs()));
  // Now from the exit stop of a getpid we run ourselves.
  ASSERT_TRUE(task.interrupt().ok());  // queue a stop; the read continues and gets interrupted
  ASSERT_TRUE(task.cont().ok());
  w = task.wait();
  ASSERT_EQ(w->kind, StopKind::PtraceEvent);
  user_regs_struct r = *task.regs(), saved = r;
  r.rip = kInjectPageAddr;
  r.rax = SYS_getpid;
  r.orig_rax = static_cast<unsigned long long>(-1);
  ASSERT_TRUE(task.set_regs(r).ok());
  ASSERT_TRUE(task.syscall().ok());
  ASSERT_EQ(task.wait()->kind, StopKind::SyscallStop);
  ASSERT_TRUE(task.syscall().ok());
  ASSERT_EQ(task.wait()->kind, StopKind::SyscallStop);
  ASSERT_EQ(task.syscall_info()->op, PTRACE_SYSCALL_INFO_EXIT);
  auto at_exit = *task.regs();
  EXPECT_EQ(static_cast<pid_t>(at_exit.rax), t->pid());
  EXPECT_EQ(*inject_syscall(task, SYS_getppid, {}), getpid());
  EXPECT_EQ(task.syscall_info()->op, PTRACE_SYSCALL_INFO_EXIT);
  EXPECT_TRUE(regs_equal(at_exit, *task.regs()));
  // Put the program back into its read() (re-issued, as a restart would) and check it still answers.
  saved.rip -= 2;
  saved.rax = saved.orig_rax;
  ASSERT_TRUE(task.set_regs(saved).ok());
  ASSERT_TRUE(task.cont().ok());
  ASSERT_OK(t->stop());
  EXPECT_TRUE(t->command("G").ok());
}

TEST(Inject, ComesBackToTheSignalDeliveryStopWithItsSiginfo) {
  auto t = CommandTracee::start();
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_TRUE(t->command("H").ok());
  Task& task = t->task();
  ASSERT_OK(install_injection_page(task));
  ASSERT_EQ(kill(t->pid(), SIGUSR1), 0);
  ASSERT_TRUE(task.cont().ok());
  auto w = task.wait();
  ASSERT_EQ(w->kind, StopKind::SignalDelivery);
  ASSERT_EQ(w->signo, SIGUSR1);
  auto info = *task.siginfo();
  auto regs = *task.regs();
  EXPECT_EQ(*inject_syscall(task, SYS_getpid, {}), t->pid());
  EXPECT_EQ(task.last_stop().kind, StopKind::SignalDelivery);
  EXPECT_EQ(task.last_stop().signo, SIGUSR1);
  auto info2 = *task.siginfo();
  EXPECT_EQ(info2.si_signo, SIGUSR1);
  EXPECT_EQ(info2.si_pid, info.si_pid);
  EXPECT_EQ(info2.si_code, info.si_code);
  EXPECT_TRUE(regs_equal(regs, *task.regs()));
  // Deliver it; the handler runs and read() restarts (SA_RESTART): the program still answers.
  ASSERT_TRUE(task.cont(SIGUSR1).ok());
  ASSERT_TRUE(t->stop().ok());
  EXPECT_TRUE(t->command("G").ok());
}

TEST(Inject, RefusesATaskThatIsNotStopped) {
  auto t = CommandTracee::start();
  ASSERT_TRUE(t.ok()) << t.error().message;
  auto w = t->run_to_exit();
  ASSERT_TRUE(w.ok());
  auto r = inject_syscall(t->task(), SYS_getpid, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "cannot inject into a task that is not stopped");
}

}  // namespace
}  // namespace slsdbg::process

namespace slsdbg::process {
namespace {

TEST(Inject, APendingInterruptSurvivesTheInjection) {
  auto t = testing::CommandTracee::start();
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_TRUE(t->command("H").ok());
  Task& task = t->task();
  ASSERT_OK(install_injection_page(task));
  ASSERT_EQ(kill(t->pid(), SIGUSR1), 0);
  ASSERT_OK(task.cont());
  auto w = task.wait();
  ASSERT_EQ(w->kind, StopKind::SignalDelivery);
  ASSERT_OK(task.interrupt());  // the caller wants an event stop after this signal
  EXPECT_EQ(*inject_syscall(task, SYS_getpid, {}), t->pid());
  EXPECT_EQ(task.last_stop().kind, StopKind::SignalDelivery);
  ASSERT_OK(task.cont(SIGUSR1));
  w = task.wait();
  ASSERT_OK(w);
  EXPECT_EQ(w->kind, StopKind::PtraceEvent);
  EXPECT_EQ(w->event, PTRACE_EVENT_STOP);
  EXPECT_TRUE(t->command("G").ok());
}

TEST(Inject, ASecondTaskObjectFindsTheStopKindAndThePage) {
  auto t = testing::CommandTracee::start();
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_TRUE(t->command("G").ok());
  ASSERT_OK(install_injection_page(t->task()));
  Task other(Tid(t->pid()), t->pid());  // knows nothing of how the thread stopped
  auto q = other.query_stop();
  ASSERT_OK(q);
  EXPECT_EQ(q->kind, StopKind::PtraceEvent);
  EXPECT_EQ(q->event, PTRACE_EVENT_STOP);
  ASSERT_OK(install_injection_page(other));
  EXPECT_TRUE(other.has_injection_page());
  EXPECT_EQ(*inject_syscall(other, SYS_getpid, {}), t->pid());
  EXPECT_TRUE(t->command("G").ok());
}

}  // namespace
}  // namespace slsdbg::process
