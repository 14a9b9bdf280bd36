// The memory word the patched breakpoint also compares after a visit with
// the target's registers but other memory (refit_patch in
// replay_session.cc): the last word of the page that differs for real (a
// loop filling memory upward writes it only at the target's visit).
// Not one in dead stack, nor one inside an XSAVE area whose differences are
// noise (xsave_noise.h): such a word may differ at the true visit too, and
// the trampoline would then reject it, run past the checkpoint into the
// CPU budget and replay the segment again (the reverted afd05c8 read the
// first differing byte's word and made e2e_replay_hot_loop take 167 s).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "engine/replay/dead_stack.h"
#include "engine/replay/patched_breakpoint.h"
#include "engine/replay/xsave_noise.h"

namespace slsdbg::replay {

// `live` and `recorded`: one page at vaddr; the images read around it (an
// XSAVE area may start on the page before). nullopt when every difference
// is noise.
std::optional<MemCheck> real_differing_word(uint64_t vaddr, std::span<const uint8_t> live,
                                            std::span<const uint8_t> recorded,
                                            const std::optional<AddressRange>& dead, const ImageReader& live_image,
                                            const ImageReader& recorded_image,
                                            const ComponentTable& components = this_cpu_components());

// Whether the word at m.addr now holds another value than m.value: a visit
// with the target's registers that such a word tells apart is rejected
// with one read instead of page comparisons (a pc that traps at every
// visit: the fallback breakpoint, SLSDBG_REPLAY_PATCH=off). Sound because
// the word is never noise: at the target moment it holds m.value. False
// when unreadable (the pages then decide).
bool word_differs(const MemCheck& m, const ImageReader& live_image);

}  // namespace slsdbg::replay
