// The memory map of a process from /proc/PID/maps.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "store/process_state.h"

namespace slsdbg::process {

Result<std::vector<store::Mapping>> read_maps(pid_t pid);

// The lines of a maps file (without build-ids, which read_maps adds); ORIGIN
// names the file in the error for a line that does not parse.
Result<std::vector<store::Mapping>> parse_maps(std::string_view text, const std::string& origin);

// Kernel-provided special mappings ([vvar], [vvar_vclock], [vsyscall], [vdso]
// ...): their contents are not the program's (the kernel supplies them, and
// [vvar]/[vsyscall] are not even readable through process_vm_readv).
bool is_special_mapping(const store::Mapping& m);

}  // namespace slsdbg::process
