// An in-process conditional breakpoint: a `jmp` written over the checkpoint's
// pc leads to a trampoline in the tracee that compares the general registers
// with the target and executes int3 only on a match; otherwise it runs the
// displaced instructions and jumps back. A visit costs a few nanoseconds
// instead of a #DB exception (about 30 us in this VM), which is what makes a
// checkpoint inside a hot loop cheap to reach (engine/replay/README.md).
//
//   pc:           jmp tramp                (5 bytes; the rest of the last
//                                           displaced instruction is padding)
//   tramp:        quick test, flags untouched: rcx saved, then for rax
//                 and rdx rcx = reg - target (mov, lea), jrcxz on;
//                 a difference: rcx back, jmp displaced
//                 save rsp, private stack, pushfq
//                 cmp each register with its target value; jne fail
//                 popfq, rsp back; int3     <- match: SIGTRAP, rip = resume()
//   resume():     jmp displaced
//   fail:         popfq, rsp back
//   displaced:    the instructions that were at pc (relative branches and
//                 rip-relative operands re-encoded); jmp pc + length
//
// Where pc's own bytes cannot move, the jump goes at an anchor before it
// (patch_site.h): the trampoline first runs the moved instructions from the
// anchor up to pc, then compares. Where a branch targets the bytes a 5-byte
// jump at pc would cover, a 2-byte jump at pc leads to the 5-byte one in
// nearby padding (relay_site.h).
//
// Not transparent: the trampoline is a mapping of its own, the code bytes at
// pc change and a single step or a watchpoint walks the trampoline. So the
// session uses it only once the segment's log is consumed (no mmap can then
// collide with the page, no signal is delivered) and, with a RunObserver,
// only while the observer has no debug register or single step in use
// (RunObserver::allows_patch), removing it before the observer's first trap.
// A branch into the middle of the moved bytes hits the int3 padding or runs
// garbage, which ends in a divergence or a stuck loop that the session
// detects, then replays without the patch (replay_session.cc). Correctness
// never depends on it: every match is checked like a hardware-breakpoint hit.
#pragma once

#include <sys/user.h>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "common/result.h"
#include "engine/replay/trampoline_code.h"
#include "process/task.h"

namespace slsdbg::replay {

// Which registers the trampoline compares (as ConditionalBreakpoint::Compare).
enum class PatchCompare { All, AllButRcxR11 };

// A memory word the trampoline also compares, after the registers: where
// a loop keeps its state in memory (an interpreter's variables), every
// visit has the target's registers, and a word that differed at the last
// such visit tells the others apart without a trap.
struct MemCheck {
  uint64_t addr = 0;   // 8-byte aligned, mapped while the patch is in
  uint64_t value = 0;  // the word at addr at the target moment
};
inline constexpr size_t kMaxMemChecks = 4;
// Registers tested without flags before the full comparison (build_trampoline).
inline constexpr size_t kQuickRegs = 2;

// The trampoline's bytes for `code` (the bytes at target.rip, at least 32),
// placed at `tramp`; an error when the instructions at pc cannot be moved
// (call, loop/jrcxz, an unconditional jump or return before 5 bytes).
struct Trampoline {
  std::vector<uint8_t> bytes;  // fits in one page with its data
  uint64_t displaced = 0;      // bytes taken from pc (>= 5)
  uint64_t resume = 0;         // the int3's next instruction (address)
  uint64_t check = 0;          // the comparison: an arrival at pc
  uint64_t from_pc = 0;        // the instructions moved from pc on
  uint64_t back = 0;           // the jump back to the site's end
};
// How many bytes at pc the jump displaces (whole instructions, >= 5).
Result<uint64_t> patch_length(std::span<const uint8_t> code, uint64_t pc);
Result<Trampoline> build_trampoline(std::span<const uint8_t> code, const user_regs_struct& target,
                                    PatchCompare compare, uint64_t tramp, std::span<const MemCheck> memory = {});
// The same for a planned site (`code` read at site.anchor; site.pc == target.rip).
Result<Trampoline> build_trampoline(std::span<const uint8_t> code, const PatchSite& site,
                                    const user_regs_struct& target, PatchCompare compare, uint64_t tramp,
                                    std::span<const MemCheck> memory = {});
// Where a thread that stands in trampoline `t` (built at `tramp` for `site`,
// `code` read at site.anchor) at `rip` stands in the program: the displaced
// instruction moved there, pc once those before it ran, the site's end at
// the jump back. A data watchpoint fires in the moved copy of the
// instruction that wrote; the registers are the program's there. nullopt
// outside the moved code (the comparison).
std::optional<uint64_t> trampoline_program_pc(const Trampoline& t, std::span<const uint8_t> code,
                                              const PatchSite& site, uint64_t tramp, uint64_t rip);

class PatchedBreakpoint {
 public:
  // Maps the trampoline near target.rip and writes the jump at site.anchor.
  // The tracee is stopped; its rip must not lie inside the displaced bytes,
  // except at pc of an anchored site: it then moves to the trampoline's
  // comparison (this arrival is checked too).
  static Result<PatchedBreakpoint> install(process::Task& task, const PatchSite& site, const user_regs_struct& target,
                                           PatchCompare compare, std::span<const MemCheck> memory = {});
  // Puts the code back and unmaps the trampoline.
  Status remove(process::Task& task);

  // The rip of the match's SIGTRAP; resuming there goes on as if no match.
  uint64_t resume_addr() const { return resume_; }
  uint64_t pc() const { return pc_; }
  // The bytes the jump replaced: [anchor(), anchor() + length()).
  uint64_t anchor() const { return anchor_; }
  uint64_t length() const { return original_.size(); }
  // Shows the original code in bytes read from the live process at addr.
  void hide(uint64_t addr, std::span<uint8_t> bytes) const;
  // trampoline_program_pc of this patch's trampoline.
  std::optional<uint64_t> program_pc(uint64_t rip) const;

 private:
  PatchedBreakpoint() = default;
  uint64_t pc_ = 0;
  uint64_t anchor_ = 0;
  uint64_t page_ = 0;
  uint64_t resume_ = 0;
  PatchSite site_;
  Trampoline layout_;  // its addresses (the bytes are not kept)
  std::vector<uint8_t> original_;  // the bytes the jump replaced
  uint64_t relay_ = 0;                   // a relayed site's padding (relay_site.h)
  std::vector<uint8_t> relay_original_;  // its bytes before the far jump
};

}  // namespace slsdbg::replay
