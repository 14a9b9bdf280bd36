#include "process/wait_status.h"

#include <signal.h>
#include <sys/wait.h>

namespace slsdbg::process {

WaitResult decode_wait_status(int status) {
  WaitResult w;
  w.raw_status = status;
  if (WIFEXITED(status)) {
    w.kind = StopKind::Exited;
    w.exit_code = WEXITSTATUS(status);
    return w;
  }
  if (WIFSIGNALED(status)) {
    w.kind = StopKind::Killed;
    w.signo = WTERMSIG(status);
    return w;
  }
  const int sig = WSTOPSIG(status);
  const int event = (status >> 16) & 0xff;
  w.signo = sig;
  if (sig == (SIGTRAP | 0x80)) {
    w.kind = StopKind::SyscallStop;
    w.signo = SIGTRAP;
  } else if (event == PTRACE_EVENT_STOP && sig != SIGTRAP) {
    w.kind = StopKind::GroupStop;
  } else if (event != 0) {
    w.kind = StopKind::PtraceEvent;
    w.event = event;
  } else {
    w.kind = StopKind::SignalDelivery;
  }
  return w;
}

}  // namespace slsdbg::process
