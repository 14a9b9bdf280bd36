// The fork family (fork, vfork, clone, clone3) as logged events: which calls
// start a process or thread, and which child a logged call started. Shared by
// the recorder (children.h) and the listings (`info`, `ls`).
#pragma once

#include <sys/types.h>

#include <optional>

#include "store/event.h"

namespace slsdbg::process {

bool is_fork_call(long nr);

// The pid of the child a logged event started (a fork-family syscall that
// returned one).
std::optional<pid_t> child_started_by(const store::Event& e);

}  // namespace slsdbg::process
