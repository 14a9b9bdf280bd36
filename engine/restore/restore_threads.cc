// The threads of a multithreaded checkpoint other than the leader. Each is
// made by a clone injected into the leader, sharing everything a pthread
// shares (CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM), with CLONE_CHILD_CLEARTID
// at its recorded clear_child_tid so that its exit clears the tid word and
// wakes pthread_join as the recorded one's did. PTRACE_O_TRACECLONE attaches
// it; it stops before running a user instruction, so the shared stack it
// starts on is never touched, and its registers (fs_base: its TLS), XSAVE,
// thread-directed pending signals and mask are then set as recorded. The
// kernel gives it a new tid: the caller keeps recorded -> live.
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>

#include <cstring>

#include "engine/restore/restore_steps.h"

namespace slsdbg::restore {

namespace {

constexpr uint64_t kThreadCloneFlags =
    CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM;

Result<process::Task> create_thread(RemoteCalls& rc, const store::ThreadState& t) {
  uint64_t flags = kThreadCloneFlags | (t.clear_child_tid ? CLONE_CHILD_CLEARTID : 0);
  // clone(flags, stack 0 = the leader's (never used: it stops first), ptid, ctid, tls)
  int64_t live = TRY(rc.call("clone (a thread)", SYS_clone, flags, 0, 0, t.clear_child_tid, 0));
  process::Task task(Tid(pid_t(live)), rc.task().tgid());
  process::WaitResult w = TRY(task.wait());
  if (w.kind != process::StopKind::PtraceEvent || w.event != PTRACE_EVENT_STOP)
    return Error::msg("thread " + std::to_string(t.tid.value) + ": no attach stop after its clone (status " +
                      std::to_string(w.raw_status) + ")");
  task.set_has_injection_page(true);  // one address space
  return task;
}

}  // namespace

Status restore_thread_ids(RemoteCalls& rc, const store::ProcessState& state) {
  // The leader's, from glibc's start-up set_tid_address; the others get theirs at clone.
  if (uint64_t ctid = state.threads.front().clear_child_tid)
    TRY(rc.call("set_tid_address", SYS_set_tid_address, ctid));
  return ok_status();
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
    process::Task task = TRY_CTX(create_thread(rc, t), "creating " + which);
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
