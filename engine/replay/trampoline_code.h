// What the in-process traps (patched_breakpoint.h, counting_patch.h) share:
// an x86-64 emitter for their trampolines, the move of the instructions a
// 5-byte `jmp` displaces at a pc (relative branches and rip-relative
// operands re-encoded with Capstone), and a free page within rel32 reach.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"

namespace slsdbg::replay {

constexpr uint64_t kTrampPage = 4096;
constexpr uint64_t kJmpLen = 5;

class Emitter {
 public:
  explicit Emitter(uint64_t base) : base_(base) {}
  uint64_t here() const { return base_ + out.size(); }
  void byte(uint8_t b) { out.push_back(b); }
  void rel32(uint64_t target);  // the instruction ends after these 4 bytes
  // REX.W op reg, [rip + to]
  void rip_op(uint8_t op, int reg, uint64_t to);
  // jne to a label not known yet: returns the rel32's offset.
  size_t jne_forward();
  void bind(size_t at, uint64_t target);
  std::vector<uint8_t> out;

 private:
  uint64_t base_;
};

// How many bytes at pc a 5-byte jump displaces (whole instructions, >= 5).
Result<uint64_t> displaced_length(std::span<const uint8_t> code, uint64_t pc);

// Emits the whole instructions at pc (`code`, at least 32 bytes read there)
// that a 5-byte jump displaces, moved to e.here(), then a jump back to the
// first instruction after them. Returns how many bytes were displaced; an
// error when they cannot be moved (a call, loop/jrcxz, a jump or return
// before 5 bytes, a target out of reach).
Result<uint64_t> emit_displaced(std::span<const uint8_t> code, uint64_t pc, Emitter& e);

// Where a jump watches a pc. Usually at pc itself; where pc's own bytes
// cannot move (a `ret` within 5 bytes: `pop rbp; ret`), at an earlier
// instruction of the same straight-line run, the anchor (patch_site.h): the
// trampoline then runs the moved instructions from the anchor up to pc
// before its check, and the rest after it.
struct PatchSite {
  uint64_t anchor = 0;  // where the jump goes
  uint64_t pc = 0;      // the pc watched, in [anchor, anchor + length)
  uint64_t length = 0;  // bytes displaced from anchor (whole instructions, >= 5; >= 2 relayed)
  // Relayed (relay_site.h): a 2-byte `jmp short` at anchor leads to these 5
  // bytes of padding, which hold the jump; 0 when the jump is at anchor.
  uint64_t relay = 0;
  uint64_t end() const { return anchor + length; }
  bool anchored() const { return anchor != pc; }
  static PatchSite at(uint64_t pc, uint64_t length) { return PatchSite{pc, pc, length}; }
};

// The bytes that send `site` to a stub at `page`: at the anchor, the jump
// and int3s over the rest of the `displaced` bytes (a branch into them
// stops); relayed, a 2-byte short jump there and the far jump for the
// padding at site.relay (write it first).
struct SiteJump {
  std::vector<uint8_t> at_anchor;
  std::vector<uint8_t> at_relay;  // empty unless relayed
};
SiteJump site_jump(const PatchSite& site, uint64_t displaced, uint64_t page);

// The displaced instructions of `site` (`code`: at least site.length bytes
// read at site.anchor) in two parts: those before pc, which run before the
// trampoline's check (none unless anchored), and those from pc on, followed
// by the jump back to site.end().
Status emit_before_pc(std::span<const uint8_t> code, const PatchSite& site, Emitter& e);
Status emit_from_pc(std::span<const uint8_t> code, const PatchSite& site, Emitter& e);
// The displaced instruction at `rip` (in [site.anchor, site.end())) is
// moved to base + offset; the offsets of emit_before_pc's and emit_from_pc's
// output, from their own start. Error when rip is not an instruction start.
Result<uint64_t> moved_offset(std::span<const uint8_t> code, const PatchSite& site, uint64_t rip);

// The program's address of the moved instruction whose copy starts at
// `rip`, among the copies of [anchor, pc) (`before`) or of [pc, end)
// laid out from `base` (in a trampoline or a counter stub); nullopt when
// rip starts none.
std::optional<uint64_t> moved_instruction_at(std::span<const uint8_t> code, const PatchSite& site, bool before,
                                             uint64_t base, uint64_t rip);

// Where the trampoline page goes. Near: the closest free page (a breakpoint
// that lives only until the checkpoint). Quiet: well away from where a later
// mmap or brk of the segment would land (a page that stays for a whole run),
// else Near.
enum class PagePlace { Near, Quiet };
Result<uint64_t> free_page_near(pid_t pid, uint64_t pc, PagePlace place = PagePlace::Near);

std::string hex_addr(uint64_t v);

}  // namespace slsdbg::replay
