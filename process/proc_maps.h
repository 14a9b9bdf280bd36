// The memory map of a process from /proc/PID/maps.
#pragma once

#include <sys/types.h>

#include <vector>

#include "common/result.h"
#include "store/process_state.h"

namespace slsdbg::process {

Result<std::vector<store::Mapping>> read_maps(pid_t pid);

// Kernel-provided special mappings ([vvar], [vvar_vclock], [vsyscall], [vdso]
// ...): their contents are not the program's (the kernel supplies them, and
// [vvar]/[vsyscall] are not even readable through process_vm_readv).
bool is_special_mapping(const store::Mapping& m);

}  // namespace slsdbg::process
