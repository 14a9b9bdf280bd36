// What a call that checkpoint k+1 cut may already have written. The
// recorder interrupts every thread waiting in the kernel before a
// checkpoint and stores it as just before its call, which it re-issues
// after; but the kernel may write the call's outputs on the way out: an
// interrupted poll writes every revents (as zero), select, ppoll and
// pselect6 the time left, nanosleep the time left. Replay never ran that
// call (its thread waits at the call's seccomp stop), so those bytes are
// the kernel's, taken from checkpoint k+1 like a logged call's writes
// (thread_check.cc). The ranges are the call's outputs when it fails with
// EINTR, as its syscall model says (process/syscalls/).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "common/result.h"
#include "engine/replay/dead_stack.h"
#include "engine/replay/xsave_noise.h"

namespace slsdbg::replay {

std::vector<AddressRange> cut_call_writes(long nr, const std::array<uint64_t, 6>& args);

// Replaces the bytes of `out` (read at `addr`) that lie in `ranges` by the
// recorded ones; a range the recording cannot serve stays as read.
void overlay_recorded(std::span<const AddressRange> ranges, const ImageReader& recorded, uint64_t addr,
                      std::span<uint8_t> out);

}  // namespace slsdbg::replay
