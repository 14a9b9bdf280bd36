// Runs a tracee stopped inside the syscall buffer's stub to its way out
// with hardware breakpoints, instead of one ptrace single-step per
// instruction. A tick that interrupts a buffered read stops the tracee
// right after the stub's fast `syscall`, about 32 instructions from the
// program's code: stepped, that was ~32 stops per checkpoint (mawk and sed
// land there at most of their ticks).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <deque>

#include "common/result.h"
#include "process/syscallbuf_stub.h"

namespace slsdbg::recorder {

// `pid` (the only thread using the stub) is in a ptrace stop inside the
// stub, neither at its trapped `syscall` nor at a `ret`. Sets DR0-DR2 on
// the trapped `syscall` and both `ret`s, continues the tracee until one is
// reached, and disables them again. Signals reported meanwhile go to
// `intercepted`, undelivered. false: the debug registers could not be set
// (nothing was run; the caller single-steps instead).
Result<bool> run_to_stub_exit(pid_t pid, const process::SysbufStubLayout& stub, std::deque<siginfo_t>& intercepted);

}  // namespace slsdbg::recorder
