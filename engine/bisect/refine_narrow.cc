#include "engine/bisect/refine_narrow.h"

#include <cstdio>
#include <cstdlib>

namespace slsdbg::bisect {

namespace {

// Fewer arrivals than this: pass 1 from the checkpoint is as cheap.
constexpr uint64_t kWorthCounting = 64;

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

bool narrowing_off() {
  const char* v = std::getenv("SLSDBG_BISECT_NARROW");
  return v && std::string(v) == "off";
}

}  // namespace

Result<Narrowed> narrow_by_arrivals(const NarrowInput& in) {
  Narrowed out;
  if (narrowing_off()) return out;
  replay::Timeline& tl = *in.timeline;
  replay::TimelineStop stop = TRY(tl.resume(replay::Direction::Forward, replay::Motion::Continue));
  if (stop.cause != replay::StopCause::Watchpoint || tl.current_segment().value != in.segment) return out;
  // Resolving the stop's moment counts its pc in the tracee, watchpoints armed.
  const replay::Moment first = TRY(tl.current_moment());
  if (first.checkpoint != in.segment) return out;
  out.arrivals = TRY(tl.arrivals(first.checkpoint, first.event, first.pc));
  if (out.arrivals < first.n + kWorthCounting) return out;
  auto bad_at = [&](uint64_t n) -> Result<bool> {
    TRY(tl.goto_moment(replay::Moment{first.checkpoint, first.event, first.pc, n}));
    out.probes++;
    if (in.say)
      in.say("refining: arrival " + std::to_string(n) + " of " + std::to_string(out.arrivals) + " at pc " + hex(first.pc) +
             " (probe " + std::to_string(out.probes) + ")");
    return in.bad_here();
  };
  uint64_t lo = first.n;
  if (TRY(bad_at(lo))) return out;  // false from the first write on: pass 1 from the checkpoint
  uint64_t hi = out.arrivals;
  if (!TRY(bad_at(hi))) {
    out.from = replay::Moment{first.checkpoint, first.event, first.pc, hi};
    return out;
  }
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (TRY(bad_at(mid))) hi = mid;
    else lo = mid;
  }
  out.from = replay::Moment{first.checkpoint, first.event, first.pc, lo};
  return out;
}

}  // namespace slsdbg::bisect
