// rdtsc/rdtscp emulation: with PR_SET_TSC(PR_TSC_SIGSEGV) the tracee faults on
// them; the recorder reads the real counter (same CPU, pinned), writes it into
// the tracee's registers, skips the instruction and logs the value.
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <optional>

#include "store/event.h"

namespace slsdbg::recorder {

enum class TscInsn { Rdtsc, Rdtscp };

// Which timestamp instruction sits at the faulting pc, if any. `code` holds
// the bytes at regs.rip (at least 3).
std::optional<TscInsn> tsc_instruction_at(const uint8_t* code);

// Executes the instruction on the tracee's behalf: updates `regs` (rax, rdx,
// rcx for rdtscp, rip) and returns the event to log.
store::Event emulate_tsc(TscInsn insn, pid_t tid, user_regs_struct& regs);

}  // namespace slsdbg::recorder
