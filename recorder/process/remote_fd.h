// Taking a copy of another process's file descriptor (pidfd_open +
// pidfd_getfd): how the recorder and restore get hold of a userfaultfd or
// memfd that only the tracee could create for its own address space.
#pragma once

#include <sys/types.h>

#include "common/fd.h"
#include "common/result.h"

namespace slsdbg::process {

// Our own descriptor for fd `remote_fd` of process `pid`. The tracee's copy
// stays open; closing it is the caller's business.
Result<UniqueFd> copy_remote_fd(pid_t pid, int remote_fd);

}  // namespace slsdbg::process
