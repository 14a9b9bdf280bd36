#include "recorder/process/remote_fd.h"

#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

namespace slsdbg::process {

Result<UniqueFd> copy_remote_fd(pid_t pid, int remote_fd) {
  UniqueFd pidfd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
  if (!pidfd.valid()) return Error::from_errno("pidfd_open");
  UniqueFd local(static_cast<int>(syscall(SYS_pidfd_getfd, pidfd.get(), remote_fd, 0)));
  if (!local.valid()) return Error::from_errno("pidfd_getfd");
  return local;
}

}  // namespace slsdbg::process
