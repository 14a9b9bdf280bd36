// The PT_NOTE payload of an x86-64 Linux core, in the order the kernel writes
// it (GDB and LLDB take the first NT_PRSTATUS as the current thread and attach
// each FPREGSET/XSTATE to the PRSTATUS before it):
//
//   thread 0: PRSTATUS, then process notes PRPSINFO SIGINFO AUXV FILE,
//             then thread 0's FPREGSET, X86_XSTATE
//   thread i: PRSTATUS, FPREGSET, X86_XSTATE
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store/process_state.h"

namespace slsdbg::dump {

struct NoteOptions {
  int signal = 0;  // reported as the stop signal (pr_cursig, NT_SIGINFO)
};

// Mappings that belong in the core, in address order. [vsyscall] is left out:
// it is a fixed kernel page outside the process's own VMAs, execute-only here.
std::vector<store::Mapping> core_mappings(const store::ProcessState& state);

// True when a mapping's contents go into the core (readable, not [vvar]).
bool mapping_has_contents(const store::Mapping& m);

std::vector<uint8_t> build_core_notes(const store::ProcessState& state, const NoteOptions& options);

}  // namespace slsdbg::dump
