#include "process/syscalls/fork_calls.h"

#include <sys/syscall.h>

namespace slsdbg::process {

bool is_fork_call(long nr) { return nr == SYS_fork || nr == SYS_vfork || nr == SYS_clone || nr == SYS_clone3; }

std::optional<pid_t> child_started_by(const store::Event& e) {
  if (e.kind != store::EventKind::Syscall || !is_fork_call(e.syscall_no) || e.result <= 0) return std::nullopt;
  return static_cast<pid_t>(e.result);
}

}  // namespace slsdbg::process
