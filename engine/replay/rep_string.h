// A checkpoint can interrupt a `rep` string instruction (memset/memcpy's
// `rep stosb`/`rep movsb`) between two iterations: rip still points at the
// instruction while rcx, rsi and rdi have advanced. Execution breakpoints fire
// only before its first iteration, so replay reaches such a checkpoint by
// stopping at the instruction with every other register equal, then running
// iterations up to the recorded rcx (checkpoint_arrival_rep_string.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace slsdbg::replay {

// How cmps/scas end before rcx does: repe while equal, repne while not.
enum class RepUntil { Count, ZeroFlagClear, ZeroFlagSet };

struct RepString {
  unsigned element_size = 1;  // bytes per iteration: 1, 2, 4 or 8
  bool walks_rdi = true;      // the pointer that moves: rdi (movs, stos, scas, ins) or rsi (lods, outs)
  unsigned length = 0;        // bytes of the instruction, prefixes included (no operands follow the opcode)
  bool counts_ecx = false;    // address-size prefix: ecx counts, not rcx
  RepUntil until = RepUntil::Count;
};

// Whether an iteration that left `eflags` ended the instruction before rcx did.
bool rep_ended_early(const RepString& s, uint64_t eflags);

// The rep/repne-prefixed string instruction (movs, stos, lods, cmps, scas,
// ins, outs) that `code` (the bytes at a pc) starts with, allowing the
// operand-size, address-size, segment and REX prefixes; nullopt otherwise.
std::optional<RepString> decode_rep_string(std::span<const uint8_t> code);

}  // namespace slsdbg::replay
