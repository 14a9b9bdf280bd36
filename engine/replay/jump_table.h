// The targets of a switch's jump table, read from the code and the table in
// the tracee's memory, so that a function with an indirect jump can still
// take an anchored patch (patch_site.h): the anchor is safe only if no
// branch can reach the bytes after it, and a jump table's entries are its
// only targets. Recognised: the bounded dispatch compilers emit for a
// switch, position-independent
//     cmp idx32, N ; ja default        (or jae: N entries)
//     [mov idx32, other32]             (the bound was on a copy)
//     lea base, [rip + table]          (or earlier, outside the dispatch's
//                                       block: then every such lea of base
//                                       in the function is a candidate)
//     movsxd t, dword [base + idx*4]
//     add t, base
//     jmp t
// with the bound also on a part of the index (`cmp al, N`) or as
// `cmp word [m], N; ja; movzx idx32, word [m]`, and absolute entries
// (`jmp qword [idx*8 + table]`). Any other indirect jump (a tail call
// through a pointer, a computed goto) is not resolved, and the function
// keeps refusing anchors.
#pragma once

#include <capstone/capstone.h>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/replay/code_function.h"

namespace slsdbg::replay {

// One decoded instruction, its operands kept (capstone's detail).
struct OpsInsn {
  uint64_t at = 0;
  uint8_t size = 0;
  unsigned id = 0;     // X86_INS_*
  uint32_t writes = 0;  // general registers written, bit per 64-bit register (gpr_bit)
  cs_x86 x{};
};
// The bit of a general register's 64-bit family (eax -> rax), 0 for others.
uint32_t gpr_bit(unsigned reg);

// A `lea reg, [rip + disp]` of the function.
struct RipLea {
  uint64_t at = 0;
  uint32_t reg = 0;  // gpr_bit
  uint64_t addr = 0;
};

// How many instructions before an indirect jump the dispatch may span.
inline constexpr size_t kDispatchWindow = 16;

struct JumpTable {
  std::vector<uint64_t> targets;
  // From the first instruction after the bound's `ja` up to the jump, a
  // branch into the dispatch would skip the bound (or the base's lea): the
  // caller refuses the table when a direct branch targets that range.
  uint64_t unguarded_from = 0;
};
// The table of the indirect jump that ends `window` (the instructions
// before it, in order); `leas`: the function's rip-relative leas. nullopt
// when it is not a dispatch recognised above, or the table cannot be read.
std::optional<JumpTable> jump_table_targets(std::span<const OpsInsn> window, std::span<const RipLea> leas,
                                            const CodeReader& read);

}  // namespace slsdbg::replay
