// Syscalls that cannot change what a capture may reuse between checkpoints
// (CaptureOptions::activity_reported): signal handlers, brk, the fd table
// with its offsets, cwd and the memory map. Their seccomp stop needs no
// note_tracee_activity(). A threaded program's blocked thread re-issues its
// cut futex after every checkpoint; noting that made every capture re-read
// maps, handlers (an injected stub) and fds: ~0.5 ms of an 8-thread stop.
// Per-thread state (registers, mask) is read at every capture anyway.
#pragma once

namespace slsdbg::recorder {

bool keeps_capture_state(long syscall_no);

}  // namespace slsdbg::recorder
