#include "engine/replay/head_progress.h"

#include <algorithm>
#include <cmath>

namespace slsdbg::replay {

namespace {

// Fewer steps than this over a tail say too little (a fraction in steps of 1/256 or coarser).
constexpr uint64_t kMinDistance = 256;
// A fraction from the CPU time is this far off at most (the hint includes the recorder's own costs).
constexpr double kCpuAgreement = 0.3;
// The probe's progress against the rate before it.
constexpr double kRateAgreement = 0.25;

uint64_t distance(uint64_t start, uint64_t target) {
  const auto whole = static_cast<int64_t>(target - start);
  return whole < 0 ? static_cast<uint64_t>(-(whole + 1)) + 1 : static_cast<uint64_t>(whole);
}

}  // namespace

double progress_fraction(uint64_t start, uint64_t value, uint64_t target) {
  const auto whole = static_cast<int64_t>(target - start);
  const auto part = static_cast<int64_t>(value - start);
  if (whole == 0) return -1;
  return static_cast<double>(part) / static_cast<double>(whole);
}

std::vector<ProgressGuess> progress_candidates(std::span<const uint64_t> start, std::span<const uint64_t> now,
                                               std::span<const uint64_t> target, double cpu_fraction,
                                               uint64_t max_distance) {
  std::vector<ProgressGuess> out;
  const size_t n = std::min({start.size(), now.size(), target.size()});
  for (size_t i = 0; i < n; i++) {
    const uint64_t d = distance(start[i], target[i]);
    if (d < kMinDistance || d > max_distance) continue;
    const double f = progress_fraction(start[i], now[i], target[i]);
    if (f <= 0 || f >= 1) continue;
    if (std::fabs(f - cpu_fraction) > kCpuAgreement * cpu_fraction) continue;
    out.push_back(ProgressGuess{i, f});
  }
  return out;
}

std::optional<ProgressGuess> confirm_progress(const std::vector<ProgressGuess>& candidates,
                                              std::span<const uint64_t> start, std::span<const uint64_t> now,
                                              std::span<const uint64_t> target, uint64_t first_ns,
                                              uint64_t probe_ns) {
  std::optional<ProgressGuess> best;
  if (first_ns == 0) return best;
  for (const ProgressGuess& c : candidates) {
    if (c.index >= std::min({start.size(), now.size(), target.size()})) continue;
    const double f = progress_fraction(start[c.index], now[c.index], target[c.index]);
    if (f <= c.fraction || f >= 1) continue;
    const double expected = c.fraction * static_cast<double>(probe_ns) / static_cast<double>(first_ns);
    if (std::fabs((f - c.fraction) - expected) > kRateAgreement * expected) continue;
    if (!best || f > best->fraction) best = ProgressGuess{c.index, f};
  }
  return best;
}

}  // namespace slsdbg::replay
