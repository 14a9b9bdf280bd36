// The threads of a multithreaded checkpoint other than the leader. Each is
// made by a clone injected into the leader, sharing everything a pthread
// shares (CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM), with CLONE_CHILD_CLEARTID
// at its recorded clear_child_tid so that its exit clears the tid word and
// wakes pthread_join as the recorded one's did. PTRACE_O_TRACECLONE attaches
// it; it stops before running a user instruction, so the shared stack it
// starts on is never touched, and its registers (fs_base: its TLS), XSAVE,
// thread-directed pending signals, mask and robust futex list are then set
// as recorded. It gets its recorded tid where the kernel allows (clone3's
// set_tid), else a new one: the caller keeps recorded -> live.
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>

#include <cstring>

#include "engine/restore/restore_steps.h"
#include "process/clone_args.h"
#include "process/inject.h"

namespace slsdbg::restore {

namespace {

constexpr uint64_t kThreadCloneFlags =
    CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM;

// The thread made with its recorded tid: at a thread's exit the kernel marks
// a robust mutex FUTEX_OWNER_DIED only if the futex word names the thread's
// live tid, and glibc wrote the recorded one. clone3's set_tid needs
// CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE and a free tid; else -errno.
Result<int64_t> clone_with_recorded_tid(RemoteCalls& rc, uint64_t flags, const store::ThreadState& t) {
  rc.reset_scratch();
  const pid_t want = t.tid.value;
  const uint64_t tid_at = TRY(rc.put({reinterpret_cast<const uint8_t*>(&want), sizeof want}));
  process::CloneArgs args{};
  args.flags = flags;
  args.child_tid = t.clear_child_tid;  // stack 0: the leader's (never used: it stops first)
  args.set_tid = tid_at;
  args.set_tid_size = 1;
  const uint64_t at = TRY(rc.put({reinterpret_cast<const uint8_t*>(&args), sizeof args}));
  return rc.raw(SYS_clone3, at, sizeof args);
}

Result<process::Task> create_thread(RemoteCalls& rc, const store::ThreadState& t, RestoreReport& report) {
  uint64_t flags = kThreadCloneFlags | (t.clear_child_tid ? CLONE_CHILD_CLEARTID : 0);
  int64_t live = TRY(clone_with_recorded_tid(rc, flags, t));
  if (live < 0) {
    if (t.robust_list_head)
      report.warnings.push_back("thread " + std::to_string(t.tid.value) + " runs under another tid (clone3 with its own: " +
                                std::strerror(int(-live)) + "): a robust mutex it holds is not marked at its exit");
    // clone(flags, stack 0 = the leader's (never used: it stops first), ptid, ctid, tls)
    live = TRY(rc.call("clone (a thread)", SYS_clone, flags, 0, 0, t.clear_child_tid, 0));
  }
  process::Task task(Tid(pid_t(live)), rc.task().tgid());
  process::WaitResult w = TRY(task.wait());
  if (w.kind != process::StopKind::PtraceEvent || w.event != PTRACE_EVENT_STOP)
    return Error::msg("thread " + std::to_string(t.tid.value) + ": no attach stop after its clone (status " +
                      std::to_string(w.raw_status) + ")");
  task.set_has_injection_page(true);  // one address space
  return task;
}

// The kernel walks a thread's robust list at its exit and marks each robust
// mutex still held FUTEX_OWNER_DIED (the next locker gets EOWNERDEAD).
// set_robust_list acts on its caller only, so each thread makes the call:
// the leader through rc, another thread by injection.
Status restore_robust_list(RemoteCalls& rc, process::Task& thread, const store::ThreadState& t,
                           RestoreReport& report) {
  if (t.robust_list_head == 0) return ok_status();
  const int64_t r = &thread == &rc.task()
                        ? TRY(rc.raw(SYS_set_robust_list, t.robust_list_head, t.robust_list_len))
                        : TRY(process::inject_syscall(thread, SYS_set_robust_list,
                                                      {t.robust_list_head, t.robust_list_len, 0, 0, 0, 0}));
  if (r < 0)
    report.warnings.push_back("thread " + std::to_string(t.tid.value) + "'s robust futex list not restored: " +
                              std::strerror(int(-r)));
  return ok_status();
}

}  // namespace

Status restore_thread_ids(RemoteCalls& rc, const store::ProcessState& state, RestoreReport& report) {
  // The leader's, from glibc's start-up set_tid_address; the others get theirs at clone.
  if (uint64_t ctid = state.threads.front().clear_child_tid)
    TRY(rc.call("set_tid_address", SYS_set_tid_address, ctid));
  return restore_robust_list(rc, rc.task(), state.threads.front(), report);
}

Result<std::vector<RestoredThread>> restore_threads(RemoteCalls& rc, const store::ProcessState& state,
                                                    RestoreReport& report) {
  std::vector<RestoredThread> out;
  const pid_t pid = rc.task().tgid();
  for (size_t i = 1; i < state.threads.size(); i++) {
    const store::ThreadState& t = state.threads[i];
    const std::string which = "thread " + std::to_string(t.tid.value);
    if (t.clear_child_tid == 0)
      report.warnings.push_back(which + ": no clear_child_tid recorded (made without CLONE_CHILD_CLEARTID, as Go's "
                                        "threads are, or a recording before format 5): its exit wakes no pthread_join");
    process::Task task = TRY_CTX(create_thread(rc, t, report), "creating " + which);
    TRY_CTX(restore_robust_list(rc, task, t, report), which);
    // Born with the leader's all-blocked injection mask: raised signals stay pending.
    for (int signo = 1; signo <= 64; signo++) {
      if (!(t.sigpending & (uint64_t(1) << (signo - 1))) || signo == SIGKILL || signo == SIGSTOP) continue;
      int64_t r = TRY(rc.raw(SYS_tgkill, uint64_t(pid), uint64_t(task.tid().value), uint64_t(signo)));
      if (r < 0)
        report.warnings.push_back(which + ": pending signal " + std::to_string(signo) + " not restored: " +
                                  std::strerror(int(-r)));
    }
    TRY_CTX(restore_registers(task, t), which);
    TRY_CTX(task.set_signal_mask(t.sigmask), which);
    out.push_back(RestoredThread{t.tid, std::move(task)});
  }
  return out;
}

}  // namespace slsdbg::restore
