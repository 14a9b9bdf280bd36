// Refinement on a recording made with `record --threads`: the threaded
// timeline (engine/replay/threaded_timeline.h) goes to the last good
// checkpoint with write watchpoints on the words the invariant reads (every
// thread's DR0-DR2, so at most 3 words), runs forward, and evaluates the
// invariant on the live state (every thread, the writing one first) at each
// stop inside the segment: the first bad one is the answer, just after the
// writing instruction, in the thread that wrote. One evaluation per watched
// write (a GDB core for --expr and --cmd), so it suits segments with few.
#pragma once

#include "engine/bisect/refine.h"

namespace slsdbg::bisect {

RefineOutcome refine_threaded_segment(const RefineInput& input);

}  // namespace slsdbg::bisect
