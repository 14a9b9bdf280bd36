#include "engine/replay/head_progress.h"

#include <algorithm>
#include <cmath>

namespace slsdbg::replay {

namespace {

// Fewer steps than this over a tail say too little (a fraction in steps of 1/256 or coarser).
constexpr uint64_t kMinDistance = 256;
// A fraction from the CPU time is this far off at most (the hint includes the recorder's own costs).
constexpr double kCpuAgreement = 0.4;

}  // namespace

double progress_fraction(uint64_t start, uint64_t value, uint64_t target) {
  const auto whole = static_cast<int64_t>(target - start);
  const auto part = static_cast<int64_t>(value - start);
  if (whole == 0) return -1;
  return static_cast<double>(part) / static_cast<double>(whole);
}

std::optional<ProgressGuess> choose_progress(std::span<const uint64_t> start, std::span<const uint64_t> now,
                                             std::span<const uint64_t> target, double cpu_fraction,
                                             uint64_t max_distance) {
  std::optional<ProgressGuess> best;
  const size_t n = std::min({start.size(), now.size(), target.size()});
  for (size_t i = 0; i < n; i++) {
    const auto whole = static_cast<int64_t>(target[i] - start[i]);
    const uint64_t distance = whole < 0 ? static_cast<uint64_t>(-(whole + 1)) + 1 : static_cast<uint64_t>(whole);
    if (distance < kMinDistance || distance > max_distance) continue;
    const double f = progress_fraction(start[i], now[i], target[i]);
    if (f <= 0 || f >= 1) continue;
    if (std::fabs(f - cpu_fraction) > kCpuAgreement * cpu_fraction) continue;
    if (!best || f > best->fraction) best = ProgressGuess{i, f};
  }
  return best;
}

}  // namespace slsdbg::replay
