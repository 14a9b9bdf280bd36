// Where a thread standing at the syscall buffer stub's trapped `syscall`
// (syscallbuf_stub.h) stands natively: at the patched glibc site that
// called the stub. The stub's page has no symbols and no unwind info, so a
// debugger or unwinder shown the stub's registers prints a backtrace of
// garbage; shown the site's, it unwinds through glibc as usual.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>

namespace slsdbg::process {

struct SysbufCallSite {
  uint64_t pc;  // glibc's own `syscall` (about to run), or the instruction after it (just run)
  uint64_t sp;  // the caller's rsp, as before the site's call
};

// nullopt when rip is not the stub's trapped `syscall` (or just after it)
// or `read` cannot read the stub's frame. The other registers are glibc's
// own there: the stub restores them before that `syscall`.
std::optional<SysbufCallSite> sysbuf_call_site(uint64_t rip, uint64_t rsp,
                                               const std::function<bool(uint64_t, std::span<uint8_t>)>& read);

}  // namespace slsdbg::process
