// A checkpoint can interrupt a `rep` string instruction (memset/memcpy's
// `rep stosb`/`rep movsb`) between two iterations: rip still points at the
// instruction while rcx, rsi and rdi have advanced. Execution breakpoints fire
// only before its first iteration, so replay reaches such a checkpoint by
// stopping at the instruction with every other register equal, then running
// iterations up to the recorded rcx (replay_session.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace slsdbg::replay {

struct RepString {
  unsigned element_size = 1;  // bytes per iteration: 1, 2, 4 or 8
  bool walks_rdi = true;      // the pointer that moves: rdi (movs, stos, scas, ins) or rsi (lods, outs)
};

// The rep/repne-prefixed string instruction (movs, stos, lods, cmps, scas,
// ins, outs) that `code` (the bytes at a pc) starts with, allowing the
// operand-size, address-size, segment and REX prefixes; nullopt otherwise.
std::optional<RepString> decode_rep_string(std::span<const uint8_t> code);

}  // namespace slsdbg::replay
