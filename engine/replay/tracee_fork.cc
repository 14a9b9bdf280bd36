#include "engine/replay/tracee_fork.h"

#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "process/inject.h"

namespace slsdbg::replay {

Result<process::Task> fork_tracee(process::Task& original, const user_regs_struct& regs, uint64_t sigmask) {
  const int64_t child = TRY(process::inject_syscall(original, SYS_clone, {CLONE_PARENT | SIGCHLD, 0, 0, 0, 0, 0}));
  if (child <= 0) return Error::from_errno("clone (fork of a tracee)", static_cast<int>(-child));
  process::Task task(Tid(static_cast<int32_t>(child)), static_cast<pid_t>(child));
  // The auto-attached child reports its first stop.
  process::WaitResult w = TRY(task.wait());
  if (!w.stopped()) return Error::msg("the fork of a tracee died at once");
  TRY(task.set_regs(regs));
  TRY(task.set_signal_mask(sigmask));
  task.set_has_injection_page(true);
  return task;
}

Result<bool> has_shared_writable_mapping(pid_t pid) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  if (!maps) return Error::msg("cannot read /proc/" + std::to_string(pid) + "/maps");
  std::string line;
  while (std::getline(maps, line)) {
    char perms[5] = {};
    if (std::sscanf(line.c_str(), "%*x-%*x %4s", perms) == 1 && perms[1] == 'w' && perms[3] == 's') return true;
  }
  return false;
}

}  // namespace slsdbg::replay
