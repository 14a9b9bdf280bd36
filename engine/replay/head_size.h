#pragma once
// How long an unpatched head runs: a share of a segment's tail, sized by
// the recorded CPU-time hint and by what replay took against that hint
// before. Shared by the single-thread head (checkpoint_arrival_head.cc) and
// the threaded one (thread_check.cc's reach_next).
#include <cstdint>
#include <optional>

namespace slsdbg::replay {

// Below this the head's stops cost about what it saves.
inline constexpr uint64_t kMinHeadNs = 2'000'000;

// The share of the expected tail run unpatched; SLSDBG_REPLAY_HEAD=0 turns it off.
double head_fraction();

// Replay's CPU time over the recorder's hint, the least of the last few
// arrivals (nullopt before the first). Kept for the process: slsdbg
// replays one recording per process, and a wrong guess costs time, never
// exactness.
std::optional<double> replay_ratio();
void note_ratio(double r);

// head_fraction() * replay_ratio() * hint, or 0 (no ratio yet, or too short).
uint64_t head_ns_for(uint64_t hint_ns);

}  // namespace slsdbg::replay
