// The fd table of a process from /proc/PID/fd and /proc/PID/fdinfo.
#pragma once

#include <sys/types.h>

#include <vector>

#include "common/result.h"
#include "store/process_state.h"

namespace slsdbg::process {

// Sorted by fd. An fd closed while we read the directory is skipped.
Result<std::vector<store::FdEntry>> read_fds(pid_t pid);

}  // namespace slsdbg::process
