// Where a thread-local variable lives (qGetTLSAddr), found as glibc's own
// __tls_get_addr does, from memory only: the thread's DTV (at fs_base + 8,
// x86-64 TLS variant II) indexed by the module's TLS id. The id is counted
// along the link_map chain: glibc numbers the modules that have a PT_TLS
// segment in load order, the main program first, and the chain is that
// order. Only the public head of `struct link_map` (l_addr, l_name, l_ld,
// l_next, l_prev) is read; program headers come from the auxv for the main
// program and from each module's ELF header (mapped at l_addr) otherwise.
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "common/ids.h"
#include "common/result.h"

namespace slsdbg::gdbserver {

using MemoryReader = std::function<Status(uint64_t addr, std::span<uint8_t> out)>;

// `offset` into the TLS block of the module whose link_map is at
// `link_map`, for the thread whose fs_base is `fs_base`. An Error says why
// not (no TLS segment in that module, a block not allocated yet).
Result<RemoteAddr> thread_local_address(const MemoryReader& read, uint64_t fs_base, std::span<const uint8_t> auxv,
                                        uint64_t offset, uint64_t link_map);

}  // namespace slsdbg::gdbserver
