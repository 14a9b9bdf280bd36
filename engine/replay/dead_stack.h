// Dead stack: the bytes of a checkpoint's stack below its stack pointer and
// red zone. No live frame holds them; they keep whatever the last deep call
// chain, signal frame or lazy-binding trampoline left there. Some of that is
// CPU state no program input decides: an XSAVEC in glibc's
// _dl_runtime_resolve_xsavec writes MXCSR and the XMM registers only when
// the CPU's XINUSE bit for SSE is set, and the kernel's FPU switching changes
// that bit between record and replay. Once later calls have overwritten the
// area's header, xsave_noise.h can no longer recognise it.
//
// At a segment's end, replay therefore accepts differences confined to dead
// stack and writes the recorded bytes there, so the live state equals the
// checkpoint byte for byte afterwards (nothing the program can read without
// undefined behaviour differs before that).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "process/x86_insn.h"
#include "store/process_state.h"

namespace slsdbg::replay {

using process::kRedZoneBytes;

// [begin, end): the dead part of the stack mapping that holds `rsp` in
// `state`'s map; nullopt when rsp is in no mapping or nothing is dead.
struct AddressRange {
  uint64_t begin = 0, end = 0;
  bool contains(uint64_t a) const { return a >= begin && a < end; }
};
std::optional<AddressRange> dead_stack_range(const store::ProcessState& state, uint64_t rsp);

// A run of bytes to set to the recorded contents.
struct ByteRun {
  uint64_t addr = 0;
  uint64_t len = 0;
};

// Adds byte `a` to `runs`, extending the last run when it ends right before it.
inline void add_byte(std::vector<ByteRun>& runs, uint64_t a) {
  if (!runs.empty() && runs.back().addr + runs.back().len == a)
    runs.back().len++;
  else
    runs.push_back(ByteRun{a, 1});
}

// The runs where `live` differs from `recorded` (one page at `vaddr`) if every
// such byte lies in `dead`; nullopt when some difference is live data. An
// equal page gives an empty vector.
std::optional<std::vector<ByteRun>> dead_only_differences(uint64_t vaddr, std::span<const uint8_t> live,
                                                         std::span<const uint8_t> recorded,
                                                         const std::optional<AddressRange>& dead);

}  // namespace slsdbg::replay
