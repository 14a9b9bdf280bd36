// struct clone_args of clone3 up to set_tid_size (Linux 5.5): what
// spawn_traced (a child with a chosen pid) and restore (threads with their
// recorded tids, built in the tracee's memory) hand to clone3.
#pragma once

#include <cstdint>

namespace slsdbg::process {

struct CloneArgs {
  uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size;
};

}  // namespace slsdbg::process
