#pragma once
// Which visit of a pc is the checkpoint, predicted from values sampled at
// some visits (checkpoint_arrival_counted.cc drives the counting copies that
// take the samples): values moving by a constant step every p visits, an
// inner loop's runs, and values that only move one way. Pure functions.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace slsdbg::replay {

constexpr size_t kMaxPeriod = 12;    // visits per step of a value (2 * 12 < 25 samples)
constexpr uint32_t kMinMoves = 4;    // a one-way value is seen to change that often before it brackets
constexpr uint64_t kMaxVisit = 1ull << 40;

// Visits where values that move by a constant step reach their targets.
// samples[i][j]: value j at visit base + i. phases[j]: value j's phase
// points so far (periodic_visits), one per sample run that has one.
void predict(const std::vector<std::vector<uint64_t>>& samples, const std::vector<uint64_t>& target, uint64_t base,
             std::set<uint64_t>& out, std::map<size_t, std::set<uint64_t>>& phases);

// An inner loop's length, from one value's phase points in several of its
// runs (they lie whole runs apart): the gcd of their distances, once three
// runs are seen, and the first phase point the segment may have had (one
// length before the earliest seen, and so on back to visit 1). 0: none.
struct LoopRuns {
  uint64_t length = 0;
  uint64_t first = 0;
  uint64_t shortest = 0;  // the shortest distance seen (a whole number of runs)
};

LoopRuns loop_runs(const std::map<size_t, std::set<uint64_t>>& phases, uint64_t min_length);

// A value that only ever moves one way, by steps the data decide (a
// pointer or count advancing by a match's length: gzip's deflate loop after
// its last read; a position that stays put while an inner loop runs:
// gzip's longest_match), reaches its target value once: the checkpoint
// lies at or after the first visit with it, which lies between the last
// visit seen before it and the first one seen at or past it.
struct Monotone {
  uint64_t visit = 0;  // the last sample's
  int64_t value = 0;
  int dir = 0;  // +1 rising, -1 falling, 0 not moved yet
  bool broken = false;
  bool every_visit = true;  // moved at every visit of each sample run
  uint32_t moves = 0;       // changes seen (a buffer's word written once moves once)
};

struct Bracket {
  size_t j = 0;
  uint64_t lo = 0;  // a visit before the target value
  uint64_t hi = 0;  // one at or past it
  int dir = 0;
  int64_t want = 0;
  bool every_visit = false;
  bool before(int64_t v) const { return dir > 0 ? v < want : v > want; }
  // The next visit to look at from lo: every one in the last 64.
  uint64_t next() const { return hi - lo <= 64 ? lo + 1 : lo + (hi - lo) / 8; }
};

// After a sample run (consecutive visits from base): each value's record,
// and the narrowest bracket a value moving only one way crossed its target
// in since the previous run (one per value: `broken` once used).
std::optional<Bracket> monotone_bracket(const std::vector<std::vector<uint64_t>>& samples,
                                        const std::vector<uint64_t>& target, uint64_t base,
                                        std::vector<Monotone>& seen);

// The copy ran on to a system call, past the checkpoint (the loop ended
// between two samples): a value last seen before its target reached it by
// then, within (its last sample, end].
std::optional<Bracket> bracket_to_end(const std::vector<Monotone>& seen, const std::vector<uint64_t>& target,
                                      uint64_t end);

}  // namespace slsdbg::replay
