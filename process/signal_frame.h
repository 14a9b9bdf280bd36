// Where the kernel puts a signal frame's FPU state, and making its unwritten
// bytes the same in record and replay. The kernel XSAVEs that state straight
// into the user stack with page faults disabled; if that faults (a page the
// recorder's dirty tracking write-protected) it zeroes the whole area and
// saves again, so the bytes XSAVE leaves alone (padding, components in their
// initial state) are zeros after a fault and stale stack bytes otherwise.
// Whether it faults depends on the recorder, not the program. So both the
// recorder and replay zero that area before they deliver a held
// asynchronous signal: exactly where the kernel is about to write the
// frame (below rsp and the red zone, or at the top of the thread's
// alternate stack when the handler has SA_ONSTACK). Zeroing below rsp
// regardless wrote over live memory when a handler ran on an alternate
// stack and the thread's own stack was small: Go's 2 KiB goroutine stacks,
// preempted by SIGURG, crashed under recording.
#pragma once

#include <signal.h>

#include <cstdint>

#include "common/result.h"
#include "process/task.h"

namespace slsdbg::process {

// The kernel's struct sigaction on x86-64, as rt_sigaction reads and writes it.
struct KernelSigaction {
  uint64_t handler, flags, restorer, mask;
};

// `task`'s alternate signal stack, asked by an injected sigaltstack(NULL,
// &old) (ss_flags as the kernel reports them, SS_ONSTACK included).
Result<stack_t> read_alt_stack(Task& task);

// Zeroes [buf_fx, buf_fx + user xstate size), where the kernel puts the
// FPU state of the frame for `signo` that it delivers next (64-bit frame).
// Asks the thread for the handler's flags and its alternate stack (injected
// rt_sigaction and sigaltstack, which also leave trapno at 3 in both runs).
// An unwritable area (a stack at its end) is left alone.
Status clear_signal_fpu_area(Task& task, int signo);

// The next signal frame's sigcontext.trapno is the thread's last trap
// number, which no program input decides (a clone inherits its creator's;
// injected code and rdtsc emulation set it). At a signal-delivery stop this
// runs an injected getpid, whose int3 makes it 3 (X86_TRAP_BP); the stop
// and its siginfo stay as they were.
Status set_frame_trapno(Task& task);

}  // namespace slsdbg::process
