// x86-64 facts the tracer code tests in many places: the eflags bits a
// debugger sets or finds, the `syscall` instruction's bytes, the red zone.
#pragma once

#include <cstdint>

namespace slsdbg::process {

inline constexpr uint64_t kEflagsTf = 0x100;    // trap flag: one instruction, then #DB
inline constexpr uint64_t kEflagsRf = 0x10000;  // resume flag: the next instruction's execute breakpoint is skipped
inline constexpr uint64_t kEflagsArithmetic = 0x8d5;  // CF PF AF ZF SF OF

// `eflags` with the arithmetic flags of `from`: where they are dead, or
// left differently by CPUs (a cut repe cmps: per iteration on AMD, not on Intel).
inline uint64_t with_arithmetic_flags_of(uint64_t eflags, uint64_t from) {
  return (eflags & ~kEflagsArithmetic) | (from & kEflagsArithmetic);
}

// x86-64 SysV: the bytes below rsp a leaf function may use without moving
// it; signal frames skip them, and below them the stack is dead.
inline constexpr uint64_t kRedZoneBytes = 128;

// `syscall` is 0f 05; `code` holds at least two bytes.
inline bool is_syscall_insn(const uint8_t* code) { return code[0] == 0x0f && code[1] == 0x05; }

}  // namespace slsdbg::process
