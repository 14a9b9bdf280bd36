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

// A threaded head has no fork to fall back on: one that misses costs a
// rerun of its segment. Worth it only where the armed stretch ran slower
// than recorded (a hot checkpoint pc whose trampoline visits cost; a
// program whose recorded CPU time held write-protect faults replays faster
// than its hint, and gains little from a head: xz -T2's did, 0.7 of it),
// and while heads rarely miss.
void note_armed_stretch(double ratio);  // a stretch armed from its start: replay CPU over the hint
void note_threaded_head(bool hit);
bool threaded_head_worthwhile();

}  // namespace slsdbg::replay
