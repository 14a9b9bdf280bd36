// Counts the arrivals at a pc inside the tracee: a `jmp` over the pc leads
// to a stub that adds one to a counter in its page and executes int3 only
// when the counter reaches a limit (0: never), then runs the displaced
// instructions (moved as for patched_breakpoint.h) and jumps back. A visit
// costs a few nanoseconds instead of a #DB; the Timeline reads the counter
// at its stops. Used for its counting and target probes (timeline_counting.cc).
//
//   pc:         jmp stub                 (the rest of the displaced bytes: int3)
//   stub:       rcx, rax saved; count += 1 (lea); rcx = count - limit
//               (not, lea): no flag changes, no stack
//               jrcxz limit; rax, rcx back; jmp run
//   limit:      rax, rcx back; int3       <- count == limit: SIGTRAP, rip = reached_rip()
//   reached:    jmp run
//   run(), displaced(): the instructions that were at pc; jmp pc + length
//
// Resuming at displaced() runs the instruction at pc without counting it.
// A relayed site (relay_site.h: the threaded timeline's, thread_counters.h)
// has a 2-byte jump at pc to padding that holds the jump to the stub.
// Where pc's own bytes cannot move, the jump goes at an anchor before it
// (patch_site.h) and the stub first runs the moved instructions from the
// anchor up to pc; entry() is then where an arrival at pc is counted.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "common/result.h"
#include "engine/replay/trampoline_code.h"
#include "process/task.h"

namespace slsdbg::replay {

// Where the stub page keeps the count and the limit (8 bytes each).
constexpr uint64_t kCounterCountOffset = 2048 + 8;
constexpr uint64_t kCounterLimitOffset = 2048 + 16;

struct CounterStub {
  std::vector<uint8_t> bytes;  // one page: code, then the data area
  uint64_t displaced = 0;      // bytes taken from pc (>= 5)
  uint64_t reached = 0;        // the rip after the limit's int3
  uint64_t run = 0;            // address of the moved instructions from pc on
  uint64_t entry = 0;          // the count: an arrival at pc
  uint64_t back = 0;           // the jump back after the moved instructions
};
// The stub for the code at pc (`code`: at least 32 bytes read there), placed at `page`.
Result<CounterStub> build_counter_stub(std::span<const uint8_t> code, uint64_t pc, uint64_t page);
// The same for a planned site (`code`: at least 32 bytes read at site.anchor).
Result<CounterStub> build_counter_stub(std::span<const uint8_t> code, const PatchSite& site, uint64_t page);

// Where a thread at `rip` among stub `s`'s moved instructions stands in the
// program (`s` built at page for `site`, `code` read at site.anchor): the
// address of the instruction whose copy it stands at; at the count of an
// anchored site, pc itself. nullopt elsewhere (the limit, the jump back).
// A watch fires after a moved store there.
std::optional<uint64_t> counter_stub_program_pc(const CounterStub& s, std::span<const uint8_t> code,
                                                const PatchSite& site, uint64_t page, uint64_t rip);

class CountingPatch {
 public:
  // Maps the stub and writes the jump at site.anchor; `code` is the
  // program's code there (our int3 bytes hidden, at least 32 bytes). The
  // tracee is stopped and its rip is not inside the displaced bytes (pc
  // itself is fine; at an anchored pc the caller moves rip to entry() or
  // displaced_addr() before resuming: pc's bytes are gone).
  static Result<CountingPatch> install(process::Task& task, const PatchSite& site, std::span<const uint8_t> code);
  // Puts the code back and unmaps the stub.
  Status remove(process::Task& task);
  // The program's code back at the site, the stub page left mapped, and
  // the jump again: around a fork whose child is to hold the program's code
  // (the child unmaps the page itself, unmap_page(), when it is used).
  Status lift_jump(process::Task& task) const;
  Status restore_jump(process::Task& task) const;
  static Status unmap_page(process::Task& task, uint64_t page);
  uint64_t page() const { return page_; }
  // Whether the jump is still at pc (a mapping placed over it drops it).
  bool intact(process::Task& task) const;
  // Unmaps the stub only: the code at pc was replaced by someone else.
  void discard(process::Task& task);

  Result<uint64_t> count(process::Task& task) const;
  Status set_count(process::Task& task, uint64_t n) const;
  Status set_limit(process::Task& task, uint64_t n) const;

  uint64_t pc() const { return pc_; }
  // The bytes the jump replaced: [anchor(), anchor() + length()).
  uint64_t anchor() const { return anchor_; }
  bool anchored() const { return anchor_ != pc_; }
  // A relayed site's padding holding the far jump (relay_site.h), else 0.
  uint64_t relay() const { return relay_; }
  uint64_t length() const { return original_.size(); }
  uint64_t entry_addr() const { return entry_; }
  uint64_t reached_rip() const { return reached_; }
  uint64_t displaced_addr() const { return run_; }
  bool in_stub(uint64_t rip) const { return rip >= page_ && rip < page_ + 4096; }
  // A thread at `rip` == the stub's jump back has run the moved
  // instructions (a data watch fires there after a moved store): where it
  // stands in the program, the site's end; nullopt elsewhere.
  std::optional<uint64_t> site_end_at(uint64_t rip) const {
    return rip == back_ ? std::optional<uint64_t>(anchor_ + original_.size()) : std::nullopt;
  }
  // A thread at `rip` among the moved instructions (a site of several,
  // a watch fired after one of them): the program's address of the
  // instruction it stands at; pc itself at the count of an anchored site
  // (after the moved instructions before pc). It runs on from there in the
  // stub; once the program's code is back, from that address. nullopt
  // elsewhere (the limit, the jump back: site_end_at).
  std::optional<uint64_t> moved_from(uint64_t rip) const;
  // Shows the original code in bytes read from the live process at addr.
  void hide(uint64_t addr, std::span<uint8_t> bytes) const;

 private:
  CountingPatch() = default;
  uint64_t pc_ = 0, anchor_ = 0, page_ = 0, reached_ = 0, run_ = 0, entry_ = 0, back_ = 0;
  std::vector<uint8_t> original_;
  PatchSite site_;
  uint64_t relay_ = 0;  // a relayed site's padding (relay_site.h), 0 if none
  std::vector<uint8_t> relay_original_;
  SiteJump jump_;  // the bytes written at the anchor (and the relay)
};

}  // namespace slsdbg::replay
