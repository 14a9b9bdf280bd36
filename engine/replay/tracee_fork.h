// A copy of a stopped tracee, made by an injected clone(CLONE_PARENT): the
// child is ours to reap and the original gets no SIGCHLD. The copy starts at
// `regs` with signal mask `sigmask` (the injected call ran all-blocked).
// Memory is copied on write, so shared writable mappings stay shared with the
// original (callers refuse them); debug registers and pending signals are
// not copied.
#pragma once

#include <sys/user.h>

#include <cstdint>

#include "common/result.h"
#include "process/task.h"

namespace slsdbg::replay {

Result<process::Task> fork_tracee(process::Task& original, const user_regs_struct& regs, uint64_t sigmask);

// Whether pid maps anything shared and writable (a fork would share it).
Result<bool> has_shared_writable_mapping(pid_t pid);

}  // namespace slsdbg::replay
