// Pending signals of a ptrace-stopped thread, from the kernel's queues by
// PTRACE_PEEKSIGINFO: one syscall, where /proc/PID/task/TID/status costs an
// open, ~10 us of text generation and a parse (read at every checkpoint,
// for every thread).
//
// Exact for every signal that has a queue entry. The kernel sets a pending
// bit without one only for SIGKILL (the thread dies anyway) and for a
// standard signal sent with a negative si_code (tgkill, sigqueue) while the
// user is over RLIMIT_SIGPENDING; /proc (proc_signals.h) still sees that.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "common/result.h"

namespace slsdbg::process {

enum class SignalQueue { Thread, Shared };

// A bit per pending signal (bit signo-1), as SigPnd/ShdPnd in /proc status.
// `tid` must be a thread this process traces, in a ptrace stop.
Result<uint64_t> queued_signals(pid_t tid, SignalQueue queue);

// Those `tid` does not block (PTRACE_GETSIGMASK): the kernel delivers them at
// its next resumption. With `shared`, process-directed ones count too.
Result<uint64_t> unblocked_queued_signals(pid_t tid, bool shared);

}  // namespace slsdbg::process
