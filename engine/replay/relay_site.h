// A patch site for the session's checkpoint breakpoint where a 5-byte jump
// at pc would cover a branch target: `add rcx, 1; movzx eax, [rcx]` with a
// loop's `jmp` into the movzx. The jump's tail would then be run as code by
// that branch (int3 padding: the patched run fails, and the segment falls
// back to a trap per visit). Instead a 2-byte `jmp short` at pc, covering
// only whole instructions with no branch target inside, leads to padding
// within 127 bytes (the nops or int3s a compiler puts after an
// unconditional jump to align the next block, never run and never a
// target), which holds the 5-byte jump to the trampoline.
//
// The session's PatchedBreakpoint and the threaded timeline's counter
// stubs (thread_counters.h) take relayed sites; the single-thread
// Timeline's counter stubs keep plan_patch_site (patch_site.h).
#pragma once

#include <cstdint>

#include "common/result.h"
#include "engine/replay/code_function.h"
#include "engine/replay/trampoline_code.h"

namespace slsdbg::replay {

inline constexpr uint64_t kShortJmpLen = 2;

// The site whose jump lies inside the instruction at pc: a 5-byte jump
// over an instruction that long, else a 2-byte `jmp short` to padding
// (where no function table covers pc: int3 padding after pc, else the
// int3s before an aligned function start from which decoding meets pc,
// as between Go's functions). No
// other instruction start is overwritten, so a thread resuming at a pc
// saved before the patch went in never runs the jump's bytes as code: Go
// preempts a goroutine by a signal whose handler makes it resume at the
// interrupted pc later, from any thread, through a `ret` (#16).
// Taken first by the threaded replay (thread_reach.cc); the single-thread
// session keeps plan_checkpoint_site (its patch goes in after the unpatched
// head, when no saved pc is left to resume: not proven for Go).
Result<PatchSite> plan_one_instruction_site(uint64_t pc, const CodeReader& read);

// plan_patch_site's site unless a branch of pc's function targets the bytes
// its jump replaces; then a relayed site if padding is near, else the same
// site (its run may fail, then the segment traps per visit), or its error.
// Where no function table covers pc and pc has no site of its own (a
// 2-byte `jmp`/`jcc`: Go's `-N -l` loops), plan_one_instruction_site's.
Result<PatchSite> plan_checkpoint_site(uint64_t pc, const CodeReader& read);

// The site the threaded replay's patched breakpoint for a checkpoint at pc
// takes (thread_reach.cc): plan_one_instruction_site's, else
// plan_checkpoint_site's. Counter stubs keep clear of it (thread_counters.h).
Result<PatchSite> plan_thread_checkpoint_site(uint64_t pc, const CodeReader& read);

// The relayed site at pc, or why there is none.
Result<PatchSite> plan_relay_site(uint64_t pc, const DecodedFunction& d);

}  // namespace slsdbg::replay
