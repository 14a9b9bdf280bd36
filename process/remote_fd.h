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

// The two steps apart, for a caller that copies many descriptors of one
// process and keeps its pidfd open (one syscall per copy instead of two).
Result<UniqueFd> open_pidfd(pid_t pid);
Result<UniqueFd> copy_fd_from(int pidfd, int remote_fd);

}  // namespace slsdbg::process
