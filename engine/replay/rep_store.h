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

}  // namespace slsdbg::replay
