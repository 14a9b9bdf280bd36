// The vDSO's time functions read rdtsc and the kernel-updated vvar page, an
// input the recorder cannot see. Each exported entry point is overwritten
// with `mov eax, NR; syscall; ret`, so the call becomes a trapped, logged
// syscall with the same arguments and result.
#pragma once

#include <sys/types.h>

#include "common/result.h"

namespace slsdbg::process {

// Patches the vDSO of stopped `pid` (at its exec stop). Returns how many entry
// points were patched; a process without a vDSO patches none.
Result<int> patch_vdso_time_functions(pid_t pid);

}  // namespace slsdbg::process
