#pragma once
// How far an unpatched head (checkpoint_arrival_head.cc) got through its
// tail, read from values that count their way to the checkpoint: a loop's
// index in a register or on the stack. The head's first part is sized by
// the recorded CPU time, which leaves 40% of the tail to the patched run
// (each visit of a hot loop's pc through the trampoline, about 2.5x
// slower); a value seen at the tail's start, after the first part and at
// the checkpoint says how much is left, so a second part runs most of the
// rest unpatched too. Pure functions.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace slsdbg::replay {

struct ProgressGuess {
  size_t index = 0;       // of the value used
  double fraction = 0;    // of the tail run so far, by that value
};

// The value that best says how far the head got: it moved from `start`
// toward `target` without reaching it, by at most `max_distance` in the
// whole tail (a counter or a pointer stepping through memory; not a hash
// or a random word), and its fraction agrees with the CPU time's
// (`cpu_fraction`). Of several, the one furthest along: a second part
// sized by it stops soonest, so an overestimated rest cannot pass the
// checkpoint. nullopt: none.
std::optional<ProgressGuess> choose_progress(std::span<const uint64_t> start, std::span<const uint64_t> now,
                                             std::span<const uint64_t> target, double cpu_fraction,
                                             uint64_t max_distance);

// The fraction of its way from start to target that `value` stands at
// (negative or >= 1 outside it, in the direction start -> target).
double progress_fraction(uint64_t start, uint64_t value, uint64_t target);

}  // namespace slsdbg::replay
