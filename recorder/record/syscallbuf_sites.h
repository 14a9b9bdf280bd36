// Finding the glibc syscall sites the syscall buffer's stub can take over
// (recorder/record/syscallbuf.h), so that all of them are patched in one
// stop with one forced checkpoint instead of one checkpoint per site.
//
// A site is `syscall` followed by glibc's error check, `cmp $-4096, %rax`
// (wide, 8 bytes from `syscall`) or `cmp $0xfffff000, %eax` (narrow, 7).
// The scan keeps only sites whose number is set right before them,
// `mov $NR, %eax` or `xor %eax, %eax` (NR 0), with a bufferable NR: the
// number is then known without running the code, and a site that serves
// fork-family or stack-switching calls is never touched. Sites whose number
// comes from a register (glibc's cancellable paths) are still patched at
// their first trap.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace slsdbg::recorder {

struct SysbufSite {
  uint64_t addr;  // of the `syscall` instruction
  bool wide;      // the 8-byte shape (`cmp $-4096, %rax`)
  long nr;        // set by the instruction before it; -1: not known
};

// Every `syscall` of either shape in `code`, mapped at `base`, whatever sets
// its number (the site cache, syscallbuf_site_cache.h, holds them all).
std::vector<SysbufSite> find_syscall_shapes(std::span<const uint8_t> code, uint64_t base);

// The sites in `code`, mapped at `base`, whose NR `bufferable` accepts.
std::vector<SysbufSite> find_sysbuf_sites(std::span<const uint8_t> code, uint64_t base, bool (*bufferable)(long));

// The shapes, from `syscall` on.
inline constexpr uint8_t kSysbufWideSite[8] = {0x0f, 0x05, 0x48, 0x3d, 0x00, 0xf0, 0xff, 0xff};
inline constexpr uint8_t kSysbufNarrowSite[7] = {0x0f, 0x05, 0x3d, 0x00, 0xf0, 0xff, 0xff};

}  // namespace slsdbg::recorder
