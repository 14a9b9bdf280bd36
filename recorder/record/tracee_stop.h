// Decoding of waitpid statuses into the stops the recording loop handles.
// The loop waits with raw waitpid (not process::Task::wait) so that the tick
// timer's signal can interrupt the wait with EINTR.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace slsdbg::recorder {

enum class StopKind {
  Exited,          // exit_code valid
  Killed,          // signo valid
  Seccomp,         // PTRACE_EVENT_SECCOMP: a trapped syscall, not yet run
  SyscallExit,     // syscall-exit-stop (PTRACE_SYSCALL with TRACESYSGOOD)
  Signal,          // signal-delivery-stop, signo valid
  Interrupt,       // PTRACE_EVENT_STOP after PTRACE_INTERRUPT (SIGTRAP)
  GroupStop,       // PTRACE_EVENT_STOP for a stopping signal
  OtherEvent,      // exec/clone/fork/exit events
};

struct TraceeStop {
  StopKind kind = StopKind::OtherEvent;
  int signo = 0;
  int exit_code = 0;
  int event = 0;  // PTRACE_EVENT_* for OtherEvent
};

TraceeStop decode_wait_status(int status);

// Monotonic nanoseconds.
uint64_t monotonic_ns();

}  // namespace slsdbg::recorder
