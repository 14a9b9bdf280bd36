// Differences at a threaded checkpoint that no program input decides
// (thread_check.cc), as SegmentRun sets them aside for one thread: bytes in
// any thread's dead stack (dead_stack.h; also the stack of a thread that
// ended in the segment, below where it stood at checkpoint k), bytes a cut
// rep string instruction stored ahead of its registers (rep_store.h), then
// XINUSE noise in XSAVE areas (xsave_noise.h). What must be written to make
// the live process equal the checkpoint is collected in a ThreadSettle.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/replay/dead_stack.h"
#include "engine/replay/rep_store.h"
#include "engine/replay/xsave_noise.h"

namespace slsdbg::replay {

struct ThreadSettle {
  std::vector<ByteRun> dead_runs;
  std::vector<ByteRun> rep_ahead_runs;  // equal to what the rep string will store there
  std::vector<XsaveArea> xsave_areas;
};

// Whether the page at `vaddr` equals its recorded bytes but for noise; the
// noise is added to `settle`. The readers serve reads outside the page.
bool equal_but_thread_noise(uint64_t vaddr, std::span<const uint8_t> live, std::span<const uint8_t> recorded,
                            std::span<const AddressRange> dead, std::span<const RepAhead> ahead,
                            const ImageReader& live_image,
                            const ImageReader& recorded_image, ThreadSettle& settle);

}  // namespace slsdbg::replay
