// The vDSO's time functions read rdtsc and the kernel-updated vvar page, an
// input the recorder cannot see. Each exported entry point is overwritten
// with `mov eax, NR; syscall; ret`, so the call becomes a trapped, logged
// syscall with the same arguments and result; or, in a recording made with
// the syscall buffer, the clock reads (clock_gettime, clock_getres,
// gettimeofday, time) with `mov eax, NR; call *ptr; ret` into the buffer's
// stub (syscallbuf_stub.h), which logs them without a stop while it is
// enabled and traps them otherwise (always in replay).
#pragma once

#include <sys/types.h>

#include "common/result.h"

namespace slsdbg::process {

// How a patched clock read reaches the kernel. Record and replay must agree:
// replay takes the recording's (ThroughSyscallBuffer when it stores a stub
// version), since the two log their calls at different pcs.
enum class VdsoRoute { Syscall, ThroughSyscallBuffer };

// Patches the vDSO of stopped `pid` (at its exec stop). Returns how many entry
// points were patched; a process without a vDSO patches none. The stub route
// needs the injection area (inject.h) installed.
Result<int> patch_vdso_time_functions(pid_t pid, VdsoRoute route);

}  // namespace slsdbg::process
