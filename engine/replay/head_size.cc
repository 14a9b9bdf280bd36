#include "engine/replay/head_size.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>

namespace slsdbg::replay {

double head_fraction() {
  if (const char* e = std::getenv("SLSDBG_REPLAY_HEAD")) {
    char* end = nullptr;
    const double f = std::strtod(e, &end);
    if (end != e && f >= 0 && f < 1) return f;
  }
  return 0.6;
}

namespace {

// The hint also holds the recording's own costs in the tracee (write-protect
// faults of a program that writes memory: rec_memloop's tail replays in
// under half its hint), so the head is sized by what replay took, not by
// the hint alone. A reverse scan's second thread (timeline_scan_ahead.cc)
// shares them: hence the lock.
constexpr size_t kRatios = 4;
std::mutex ratios_mu;
double ratios[kRatios];
size_t ratios_seen = 0;

}  // namespace

std::optional<double> replay_ratio() {
  const std::lock_guard lock(ratios_mu);
  if (ratios_seen == 0) return std::nullopt;  // the first arrival measures it
  double least = 1.0;
  for (size_t i = 0; i < std::min(ratios_seen, kRatios); i++) least = std::min(least, ratios[i]);
  return least;
}

void note_ratio(double r) {
  const std::lock_guard lock(ratios_mu);
  ratios[ratios_seen++ % kRatios] = r;
}

namespace {

// The last armed stretch's ratio above which the trampoline's visits cost.
constexpr double kSlowArmed = 1.3;
std::mutex threaded_mu;
double last_armed = 0;  // none yet: no head
uint64_t head_hits = 0, head_misses = 0;

}  // namespace

void note_armed_stretch(double ratio) {
  const std::lock_guard lock(threaded_mu);
  last_armed = ratio;
}

void note_threaded_head(bool hit) {
  const std::lock_guard lock(threaded_mu);
  (hit ? head_hits : head_misses)++;
}

bool threaded_head_worthwhile() {
  const std::lock_guard lock(threaded_mu);
  return last_armed >= kSlowArmed && head_misses * 4 <= head_hits + 4;
}

uint64_t head_ns_for(uint64_t hint_ns) {
  const std::optional<double> ratio = replay_ratio();
  if (!ratio) return 0;
  const auto head = static_cast<uint64_t>(head_fraction() * *ratio * static_cast<double>(hint_ns));
  return head < kMinHeadNs ? 0 : head;
}

}  // namespace slsdbg::replay
