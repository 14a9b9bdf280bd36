#include "recorder/capture/state_keeping_syscalls.h"

#include <sys/syscall.h>

namespace slsdbg::recorder {

bool keeps_capture_state(long nr) {
  switch (nr) {
    // Waiting and time: no fd, mapping or handler involved.
    case SYS_futex:
    case SYS_sched_yield:
    case SYS_nanosleep:
    case SYS_clock_nanosleep:
    case SYS_restart_syscall:  // resumes one of these after a signal or a checkpoint
    case SYS_pause:
    case SYS_clock_gettime:
    case SYS_clock_getres:
    case SYS_gettimeofday:
    case SYS_time:
    // Identity and read-only queries.
    case SYS_getpid:
    case SYS_gettid:
    case SYS_getppid:
    case SYS_getuid:
    case SYS_geteuid:
    case SYS_getgid:
    case SYS_getegid:
    case SYS_getrandom:
    case SYS_sched_getaffinity:
    case SYS_getrusage:
    case SYS_uname:
    // The calling thread's own mask (captured with its registers), and a
    // new thread's robust list and rseq area (per thread, not captured).
    case SYS_rt_sigprocmask:
    case SYS_set_robust_list:
    case SYS_rseq:
      return true;
    default:
      return false;
  }
}

}  // namespace slsdbg::recorder
