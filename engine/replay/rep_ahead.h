// A checkpoint that cut a fast-string `rep movs`/`rep stos` may hold stores
// of iterations its registers do not count yet: the CPU writes a group of
// elements ahead (xz's memcpy: rdi at byte 4033 of a page whose bytes from
// 4033 on already held the copy). Replay runs exactly the counted
// iterations, so those bytes differ although this is the checkpoint. They
// lie in the destination the remaining rcx iterations write, and hold what
// those iterations store (the source's bytes, or rax's): such differences
// are no reason to refuse the arrival, and the recorded bytes are written
// (the remaining iterations would write the same). The threaded replay
// compares the same stores page by page itself (rep_store.h's RepAhead,
// thread_noise.h); this is the single-thread SegmentRun's.
#pragma once

#include <sys/user.h>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/replay/dead_stack.h"
#include "engine/replay/rep_string.h"
#include "engine/replay/xsave_noise.h"

namespace slsdbg::replay {

// The destination the remaining iterations write, for a movs or stos cut at
// `at` (registers of the checkpoint); nullopt for other string instructions
// and a movs whose source overlaps it.
std::optional<AddressRange> rep_remaining_destination(const RepString& op, const user_regs_struct& at);

// The runs where `live` differs from `recorded` (one page at `vaddr`) if
// every difference is an ahead store of the cut at `at`; nullopt if some
// difference is real. `live_image` reads the source of a movs.
std::optional<std::vector<ByteRun>> ahead_store_differences(uint64_t vaddr, std::span<const uint8_t> live,
                                                            std::span<const uint8_t> recorded, const RepString& op,
                                                            const user_regs_struct& at, const ImageReader& live_image);

}  // namespace slsdbg::replay
