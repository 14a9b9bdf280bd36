// Signal numbers on the wire are GDB's host-independent numbering, not Linux's
// (SIGBUS is 7 on Linux and 10 for GDB). The Target interface speaks Linux
// numbers; the protocol layer converts at the boundary.
#pragma once

namespace slsdbg::gdbserver {

inline constexpr int kGdbSignalUnknown = 143;

// Linux signal number -> GDB signal number (143 "unknown" when there is none).
int gdb_signal_from_host(int host_signal);
// GDB signal number -> Linux signal number; 0 when Linux has no equivalent.
int host_signal_from_gdb(int gdb_signal);

}  // namespace slsdbg::gdbserver
