// What the in-process traps (patched_breakpoint.h, counting_patch.h) share:
// an x86-64 emitter for their trampolines, the move of the instructions a
// 5-byte `jmp` displaces at a pc (relative branches and rip-relative
// operands re-encoded with Capstone), and a free page within rel32 reach.
#pragma once

#include <sys/types.h>

#include <cstdint>
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

// Where the trampoline page goes. Near: the closest free page (a breakpoint
// that lives only until the checkpoint). Quiet: well away from where a later
// mmap or brk of the segment would land (a page that stays for a whole run),
// else Near.
enum class PagePlace { Near, Quiet };
Result<uint64_t> free_page_near(pid_t pid, uint64_t pc, PagePlace place = PagePlace::Near);

std::string hex_addr(uint64_t v);

}  // namespace slsdbg::replay
