// Starting a program under ptrace: fork, PTRACE_SEIZE with the recorder's
// options, an in-child hook (seccomp, PR_SET_TSC, affinity), execve.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/result.h"
#include "process/task.h"

namespace slsdbg::process {

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0] is the program (searched in PATH when it has no '/')
  std::vector<std::string> env;   // KEY=VALUE; empty means: inherit this process's environment
  // Runs in the child after it is seized and before execve. An error aborts
  // the spawn; its message comes back to the caller.
  std::function<Status()> in_child_before_exec;
  // Nonzero: the pid to give the child (clone3's set_tid: needs
  // CAP_CHECKPOINT_RESTORE and the pid free); a refusal falls back to fork's.
  pid_t pid = 0;
};

// Options set on every spawned tracee.
inline constexpr long kTraceOptions = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEEXEC |
                                      PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
                                      PTRACE_O_EXITKILL;

// Returns the task stopped at its PTRACE_EVENT_EXEC stop (the new program has
// not run an instruction yet). Seccomp stops before the exec (the hook's own
// syscalls, execve itself) are let through. A program that cannot be executed
// gives "cannot execute PROG: <strerror>" and leaves no zombie.
Result<Task> spawn_traced(const SpawnOptions& options);

}  // namespace slsdbg::process
