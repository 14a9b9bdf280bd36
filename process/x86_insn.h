// x86-64 facts the tracer code tests in many places: the eflags bits a
// debugger sets or finds, and the `syscall` instruction's bytes.
#pragma once

#include <cstdint>

namespace slsdbg::process {

inline constexpr uint64_t kEflagsTf = 0x100;    // trap flag: one instruction, then #DB
inline constexpr uint64_t kEflagsRf = 0x10000;  // resume flag: the next instruction's execute breakpoint is skipped
inline constexpr uint64_t kEflagsArithmetic = 0x8d5;  // CF PF AF ZF SF OF

// `syscall` is 0f 05; `code` holds at least two bytes.
inline bool is_syscall_insn(const uint8_t* code) { return code[0] == 0x0f && code[1] == 0x05; }

}  // namespace slsdbg::process
