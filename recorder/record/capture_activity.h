// Which syscalls count as activity for the next checkpoint capture, which
// re-reads /proc/PID/maps, the signal handlers, brk, the fd table and cwd
// after activity and reuses the previous capture's otherwise
// (checkpoint_capture.h). A thread waiting in pthread_join or on a
// condition variable is cut out of its futex at every checkpoint and
// re-issues the call after it; counted as activity, that re-issue made
// every threaded checkpoint re-read all of it.
#pragma once

namespace slsdbg::recorder {

// True for calls that change none of that state, whatever their arguments
// or result: the futex family (a wait or wake touches only the futex word
// and the scheduler). Every other call, unknown ones included, counts.
bool leaves_capture_state_alone(long nr);

}  // namespace slsdbg::recorder
