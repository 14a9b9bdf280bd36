// Refinement: inside the first bad segment, the exact instruction where the
// invariant flips. With the Timeline (engine/replay/timeline.h): go to the
// last good checkpoint, put hardware watchpoints (write) on the memory the
// invariant reads, narrow the start by a binary search over counted
// arrivals (refine_narrow.h), run forward from there; at each watchpoint stop
//   --plugin: evaluate the plugin on the live replay state;
//   --expr, --cmd: keep a copy of the watched bytes; afterwards a binary
//             search over those copies (the invariant over the last good
//             checkpoint's core with the watched bytes replaced) finds the
//             first bad stop, which is then replayed to and confirmed by the
//             invariant on the real state there. For --cmd the watched words
//             are those cmd_discover.h found.
// The answer is the moment just after the writing instruction.
#pragma once

#include <functional>
#include <string>

#include "engine/bisect/bisect.h"
#include "engine/bisect/invariant.h"
#include "engine/bisect/scratch_dir.h"
#include "store/recording.h"

namespace slsdbg::bisect {

// 8-byte words the replay can watch at once (Timeline::add_watchpoint: the
// debug registers are shared with its navigation).
constexpr size_t kReplayWatchWords = 2;

struct RefineInput {
  const store::RecordingReader* reader = nullptr;
  Invariant* invariant = nullptr;
  Mode mode = Mode::Expr;
  uint64_t last_good = 0, first_bad = 0;          // checkpoint ids, adjacent
  const store::ProcessState* last_good_state = nullptr;
  WatchSet watch;
  const ScratchDir* scratch = nullptr;
  std::function<void(const std::string&)> progress;
  // Polled by the replay: true ends refinement (the answer stays at segment granularity).
  std::function<bool()> interrupted;
};

struct RefineOutcome {
  RefineState state = RefineState::NotBuilt;
  std::string note;
  std::optional<Refined> refined;
  std::string answer_core;   // Done: a core of the refined moment (in scratch), for --show
};

RefineOutcome refine_segment(const RefineInput& input);

}  // namespace slsdbg::bisect
