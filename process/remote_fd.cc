#include "process/remote_fd.h"

#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

namespace slsdbg::process {

Result<UniqueFd> open_pidfd(pid_t pid) {
  UniqueFd pidfd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
  if (!pidfd.valid()) return Error::from_errno("pidfd_open");
  return pidfd;
}

Result<UniqueFd> copy_fd_from(int pidfd, int remote_fd) {
  UniqueFd local(static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, remote_fd, 0)));
  if (!local.valid()) return Error::from_errno("pidfd_getfd");
  return local;
}

Result<UniqueFd> copy_remote_fd(pid_t pid, int remote_fd) {
  UniqueFd pidfd = TRY(open_pidfd(pid));
  return copy_fd_from(pidfd.get(), remote_fd);
}

}  // namespace slsdbg::process
