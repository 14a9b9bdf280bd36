// Which recorded syscalls replay runs for real and which it emulates from the
// log (the rest).
#pragma once

#include <array>
#include <cstdint>

namespace slsdbg::replay {

enum class SyscallHandling {
  Emulate,          // skip it; logged result + memory writes
  RunAndCheck,      // run it; its result must equal the logged one
  RunUseLogged,     // run it; then impose the logged result (fd numbers of emulated opens may differ)
  EndOfProcess,     // exit / exit_group: runs for real, then the Exit event
};

// Address space (mmap, munmap, mremap, mprotect, brk, madvise), state the
// kernel keeps for the process (arch_prctl, prctl, set_tid_address,
// set_robust_list, rt_sigaction, rt_sigprocmask, sigaltstack, rt_sigreturn)
// and read-only opens (so that a later mmap of the file works) run for real,
// as do dups, memfd_create, ftruncate and close/close_range (descriptors).
// An emulated call that created descriptors leaves a placeholder at each
// recorded number (fd_placeholders.h), so numbering matches the recording.
SyscallHandling handling_of(int64_t nr, const std::array<uint64_t, 6>& args);

}  // namespace slsdbg::replay
