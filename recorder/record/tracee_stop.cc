#include "recorder/record/tracee_stop.h"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>

namespace slsdbg::recorder {

TraceeStop decode_wait_status(int status) {
  TraceeStop s;
  if (WIFEXITED(status)) {
    s.kind = StopKind::Exited;
    s.exit_code = WEXITSTATUS(status);
    return s;
  }
  if (WIFSIGNALED(status)) {
    s.kind = StopKind::Killed;
    s.signo = WTERMSIG(status);
    return s;
  }
  const int sig = WSTOPSIG(status);
  const int event = (status >> 16) & 0xff;
  if (sig == (SIGTRAP | 0x80)) {
    s.kind = StopKind::SyscallExit;
    return s;
  }
  if (event == PTRACE_EVENT_SECCOMP) {
    s.kind = StopKind::Seccomp;
    return s;
  }
  if (event == PTRACE_EVENT_STOP) {
    s.kind = sig == SIGTRAP ? StopKind::Interrupt : StopKind::GroupStop;
    s.signo = sig;
    return s;
  }
  if (event != 0) {
    s.kind = StopKind::OtherEvent;
    s.event = event;
    return s;
  }
  s.kind = StopKind::Signal;
  s.signo = sig;
  return s;
}

uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + ts.tv_nsec;
}

}  // namespace slsdbg::recorder
