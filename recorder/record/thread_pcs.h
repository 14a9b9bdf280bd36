// Where the other threads of a recorded process will next execute program
// code, read at a stop of one of them (the syscall buffer's patches,
// syscallbuf.h: a site may be rewritten only where no thread stands inside
// it or will come back into it).
//
// /proc/PID/task/TID/syscall gives, for a thread that is not running, the
// user pc its registers hold: right after the `syscall` of a call it waits
// in, or where a ptrace stop left it (a rewound call's `syscall` itself). A
// thread that may be running says "running": its pc is not known, and the
// answer is nullopt. A thread that is gone by the time it is read counts
// for nothing (it will not execute program code again).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace slsdbg::recorder {

// The pcs of every thread of `tgid` but `self`; nullopt when one runs.
Result<std::optional<std::vector<uint64_t>>> other_thread_pcs(pid_t tgid, pid_t self);

// One /proc/PID/task/TID/syscall line's pc; nullopt for "running" or an
// unreadable line.
std::optional<uint64_t> pc_of_syscall_line(const std::string& line);

}  // namespace slsdbg::recorder
