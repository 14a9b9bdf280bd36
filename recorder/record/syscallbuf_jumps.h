// Which glibc syscall sites the syscall buffer may patch without breaking a
// jump (recorder/record/syscallbuf.h). The patch (`call *ptr`, 7 bytes, and
// a nop) covers the site's `syscall` and the `cmp` after it, so code that
// branches straight to that `cmp` would land inside the `call`. A site is
// refused (left trapped) when a direct jmp, jcc or call enters its bytes
// anywhere after the first:
//  - near branches (rel8, which reach 128 bytes): capstone disassembles
//    the function holding the site from its start, found in .eh_frame_hdr
//    (every glibc function, hand-written assembly included, has an FDE),
//    to 128 bytes past the site; a function that does not decode cleanly
//    there, or whose sweep does not meet the site, refuses it;
//  - far ones (another function, a `.cold` part): every rel32 jmp, jcc and
//    call byte pattern in the whole text is checked against the sites.
// Not ruled out: a computed jump (a switch table) to the `cmp`.
// Without a readable .eh_frame_hdr every site is refused.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <set>
#include <span>
#include <vector>

#include "common/result.h"
#include "recorder/record/syscallbuf_sites.h"
#include "store/process_state.h"

namespace slsdbg::recorder {

// The function start addresses of an .eh_frame_hdr binary search table
// mapped at `hdr_addr`, sorted.
Result<std::vector<uint64_t>> eh_frame_hdr_functions(std::span<const uint8_t> hdr, uint64_t hdr_addr);

// Of `sites` (8 bytes from the `syscall` if wide, else 7), the addresses
// of those a direct branch in `text` (mapped at `text_addr`) enters after
// the first byte, or that cannot be checked. `functions`: sorted starts.
std::set<uint64_t> sites_jumped_into(std::span<const uint8_t> text, uint64_t text_addr,
                                     std::span<const uint64_t> functions, std::span<const SysbufSite> sites);

// libc's text and function bounds, read once from the tracee's memory.
class SiteJumpCheck {
 public:
  static Result<SiteJumpCheck> load(pid_t pid, const std::vector<store::Mapping>& maps);
  // The addresses of the sites that must not be patched.
  std::set<uint64_t> refused(std::span<const SysbufSite> sites) const;
  // The text as read, if it is the mapping [start, end) (saves a re-read).
  std::span<const uint8_t> text(uint64_t start, uint64_t end) const {
    return start == text_addr_ && end - start == text_.size() ? std::span<const uint8_t>(text_) : std::span<const uint8_t>();
  }

 private:
  uint64_t text_addr_ = 0;
  std::vector<uint8_t> text_;
  std::vector<uint64_t> functions_;
};

}  // namespace slsdbg::recorder
