// The one decoder of ptrace wait statuses, shared by the recorder's loop
// (which calls waitpid itself, so the tick timer's signal can interrupt the
// wait with EINTR) and by Task::wait (replay, restore, injection).
#pragma once

#include <sys/ptrace.h>  // glibc's: PTRACE_EVENT_*

namespace slsdbg::process {

enum class StopKind {
  Exited,          // exit_code valid; the task is gone (reaped)
  Killed,          // signo valid; the task is gone (reaped)
  SignalDelivery,  // signal-delivery-stop for signo; cont(signo) delivers it
  GroupStop,       // PTRACE_EVENT_STOP caused by a stop signal (signo)
  PtraceEvent,     // PTRACE_EVENT_* stop (event valid): seccomp, exec, clone, fork, vfork, stop (interrupt)
  SyscallStop,     // syscall-enter or -exit stop (PTRACE_O_TRACESYSGOOD)
};

struct WaitResult {
  StopKind kind = StopKind::SignalDelivery;
  int raw_status = 0;
  int exit_code = 0;  // Exited
  int signo = 0;      // Killed, SignalDelivery, GroupStop
  int event = 0;      // PtraceEvent: PTRACE_EVENT_*
  bool stopped() const { return kind != StopKind::Exited && kind != StopKind::Killed; }
  bool is_event(int e) const { return kind == StopKind::PtraceEvent && event == e; }
  // A trapped syscall, not yet run (SECCOMP_RET_TRACE).
  bool is_seccomp() const { return is_event(PTRACE_EVENT_SECCOMP); }
  // The stop PTRACE_INTERRUPT asked for (PTRACE_EVENT_STOP with SIGTRAP).
  bool is_interrupt() const { return is_event(PTRACE_EVENT_STOP); }
  // A fork, vfork or clone event: the call's entry, its child announced.
  bool is_fork_event() const {
    return is_event(PTRACE_EVENT_FORK) || is_event(PTRACE_EVENT_VFORK) || is_event(PTRACE_EVENT_CLONE);
  }
};

// Decodes a waitpid status of a PTRACE_SEIZE'd thread. PTRACE_EVENT_STOP with
// SIGTRAP is an interrupt (PtraceEvent), with any other signal a group-stop:
// the kernel reports only stop signals there.
WaitResult decode_wait_status(int status);

}  // namespace slsdbg::process
