#pragma once
// How far an unpatched head (checkpoint_arrival_head.cc) got through its
// tail, read from values that count their way to the checkpoint: a loop's
// index in a register or on the stack. The head's first part is sized by
// the recorded CPU time, which leaves 40% of the tail to the patched run
// (each visit of a hot loop's pc through the trampoline, about 2.5x
// slower); a value seen at the tail's start, after the first part and at
// the checkpoint says how much is left, a short probe confirms that it
// moves at a steady rate, and a last part runs most of the rest unpatched
// too. Pure functions.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace slsdbg::replay {

struct ProgressGuess {
  size_t index = 0;     // of the value used
  double fraction = 0;  // of its way from the tail's start to the checkpoint, now
};

// The fraction of its way from start to target that `value` stands at
// (negative or >= 1 outside it, in the direction start -> target).
double progress_fraction(uint64_t start, uint64_t value, uint64_t target);

// Values that may say how far the head got: each moved from `start` toward
// `target` without reaching it, by at most `max_distance` in the whole
// tail (a counter or a pointer stepping through memory; not a hash or a
// random word), and its fraction agrees with the CPU time's
// (`cpu_fraction`).
std::vector<ProgressGuess> progress_candidates(std::span<const uint64_t> start, std::span<const uint64_t> now,
                                               std::span<const uint64_t> target, double cpu_fraction,
                                               uint64_t max_distance);

// After a probe of `probe_ns` following `first_ns` of the tail: of the
// candidates, those that moved on at the rate they had (within a quarter)
// and are still short of their target; the one furthest along (a last
// part sized by it stops soonest, so an overestimated rest cannot pass the
// checkpoint), at its fraction now. nullopt: none.
std::optional<ProgressGuess> confirm_progress(const std::vector<ProgressGuess>& candidates,
                                              std::span<const uint64_t> start, std::span<const uint64_t> now,
                                              std::span<const uint64_t> target, uint64_t first_ns,
                                              uint64_t probe_ns);

}  // namespace slsdbg::replay
