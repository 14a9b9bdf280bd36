// The function around a pc, found in the tracee's own memory: the ELF header
// at the start of the module's mapping, its PT_GNU_EH_FRAME segment, and the
// binary search table of .eh_frame_hdr, which every x86-64 compiler emits for
// unwinding (stripped libraries included). Used to decode a function from its
// first instruction, so that instruction boundaries before a pc are known
// (x86 cannot be decoded backward) and direct branch targets can be ruled out
// (patch_site.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "common/result.h"

namespace slsdbg::replay {

// Reads the program's bytes at addr (our int3s and stubs hidden); false when unmapped.
using CodeReader = std::function<bool(uint64_t addr, std::span<uint8_t> out)>;

struct CodeFunction {
  uint64_t start = 0;
  uint64_t end = 0;  // exclusive
};

// An error when the pc lies in no module with an ELF header in memory, or its
// .eh_frame_hdr has no FDE covering pc (hand-written code without CFI, JIT).
Result<CodeFunction> function_around(uint64_t pc, const CodeReader& read);

// A function decoded from its start.
struct DecodedFunction {
  struct Insn {
    uint64_t at = 0;
    uint8_t size = 0;
    bool plain = false;      // only falls through: no branch, call, return, syscall or trap
    bool ends_flow = false;  // ret or jmp: what follows is reached by a branch only
    bool is_ret = false;
    bool padding = false;    // nop or int3 (alignment between blocks)
    bool int3 = false;       // never run by a program that works (Go pads its functions with these)
    std::optional<uint64_t> call_target;  // a direct call's callee
    std::optional<uint64_t> jump_target;  // a direct jump's (jmp, jcc) destination
  };
  CodeFunction range;
  std::vector<Insn> insns;
  std::set<uint64_t> targets;  // direct branch and call targets, and jump tables' entries (jump_table.h)
  bool indirect_jump = false;  // an indirect jump that is no recognised table (a tail call) could go anywhere
  int jump_tables = 0;         // indirect jumps resolved as tables
  std::set<uint64_t> table_targets;  // the tables' entries (also in targets)
  // False for decode_ahead's instructions: branches from before them, and
  // targets of branches never decoded, are unknown.
  bool whole = true;
  // The instruction starting at pc, or nullptr.
  const Insn* at(uint64_t pc) const;
};
// The function around pc, decoded whole (refused above 256 KiB or when some
// bytes do not decode).
Result<DecodedFunction> decode_function(uint64_t pc, const CodeReader& read);
// The instructions from pc on, decoded straight ahead through at most
// `bytes` (up to the first that does not decode): for code that no
// .eh_frame_hdr covers (Go's binaries have none). Not `whole`.
Result<DecodedFunction> decode_ahead(uint64_t pc, uint64_t bytes, const CodeReader& read);

}  // namespace slsdbg::replay
