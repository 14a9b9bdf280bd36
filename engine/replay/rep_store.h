// A tick may interrupt `rep stos` / `rep movs` (memset's and memcpy's
// ERMS paths) between two iterations: the checkpoint's pc is the
// instruction's, with rcx, rdi and rsi part way. No execution breakpoint
// fires there, so the threaded replay stops the thread at the instruction's
// start and makes the iterations up to the recorded rcx itself: their only
// effects are the stores and rcx/rdi/rsi (thread_reach.h). The
// single-thread replay steps them instead (rep_string.h,
// replay_session.cc's step_rep_iterations).
#pragma once

#include <sys/user.h>

#include <cstdint>
#include <optional>
#include <span>

#include "common/result.h"
#include "engine/replay/xsave_noise.h"
#include "process/task.h"

namespace slsdbg::replay {

struct RepStore {
  uint32_t size = 1;  // bytes per iteration: 1, 2, 4 or 8
  bool movs = false;  // rep movs (rsi moves too), else rep stos
};

// `code` at the pc: [66] F3 [REX] A4/A5/AA/AB (prefixes 66/F3 in any order).
std::optional<RepStore> decode_rep_store(std::span<const uint8_t> code);

// Iterations from `at` (the thread at the instruction, before or during
// it) to `target` (the same instruction, later): nullopt unless every
// other register is equal and rcx, rdi (and rsi) moved as that many
// iterations move them.
std::optional<uint64_t> iterations_between(const RepStore& op, const user_regs_struct& at,
                                           const user_regs_struct& target);

// Performs `n` iterations of `op` in the thread's memory from registers
// `at`, then sets rcx, rdi and rsi as they end.
Status run_iterations(process::Task& task, const RepStore& op, user_regs_struct at, uint64_t n);

// A tick that cuts a fast-string run may find some of the next iterations
// stored already: at one of thr_memset's checkpoints the rest of the 64-byte
// line at rdi held memcpy's new bytes, rdi not past them. Resuming stores
// them again, so such bytes are the instruction's own, not a divergence.
struct RepAhead {
  RepStore op;
  uint64_t begin = 0, end = 0;  // the bytes the remaining rcx iterations store
  uint64_t rax = 0, rdi = 0, rsi = 0;
};

// The stores ahead of thread registers `r` standing at `op` with rcx left;
// nullopt when none remain or a movs's source overlaps them (an earlier
// iteration may have changed it).
std::optional<RepAhead> rep_ahead(const RepStore& op, const user_regs_struct& r);

// The bytes the remaining iterations store at [addr, addr + out.size())
// (inside [begin, end)); a movs reads its source through `source`.
Status rep_ahead_bytes(const RepAhead& ahead, uint64_t addr, std::span<uint8_t> out, const ImageReader& source);

// What the cut instructions `ahead` will store in the page at `vaddr`, byte
// by byte (-1: nothing there; empty: nothing in the whole page).
std::vector<int> rep_stores_in_page(uint64_t vaddr, std::span<const RepAhead> ahead, const ImageReader& source);

}  // namespace slsdbg::replay
