// Naming the current moment without re-running a long path of Continue
// legs. A breakpoint inserted inside an event window (GDB's disable/enable,
// an ignore count) counts nothing until the next event, so each of its stops
// there pushes a Continue leg, and resolve() used to replay every one of
// them: a stop each, ~1 ms apiece, over a second for ~1000 legs.
//
// When the path's last legs are Continues stopped at one breakpoint X (no
// watchpoint), with GDB's single steps over it between them, then perhaps a
// few single steps, and the path stayed in its base's event window, the last
// stop is X's arrival number c0 + L of the window: c0 arrivals up to those
// legs (one counted run, the stub in the tracee) and one per Continue. The
// position is that moment plus the trailing steps, reached by one counted
// run that also counts the current pc; it must show the same registers and
// 512 bytes of stack as before (that also tells X among the legs'
// breakpoints, GDB's own in ld.so beside the user's). Otherwise the caller
// replays the path as it always did.
#include <algorithm>
#include <cstring>
#include <set>
#include <vector>

#include "common/log.h"
#include "engine/replay/position_print.h"
#include "engine/replay/timeline_impl.h"

namespace slsdbg::replay {

namespace {
// The answer "replay the path instead".
const std::optional<Moment> kReplayPath;
}  // namespace

Result<std::optional<Moment>> Timeline::Impl::resolve_counted(const Path& p, uint64_t pc) {
  Result<std::optional<Moment>> m = resolve_counted_once(p, pc);
  if (m.ok()) return m;
  SLSDBG_DEBUG("timeline", "resolve by counting failed (%s); replaying the path", m.error().message.c_str());
  return std::optional<Moment>{};
}

Result<std::optional<Moment>> Timeline::Impl::resolve_counted_once(const Path& p, uint64_t pc) {
  auto fingerprint = [this]() {
    return PositionPrint::take(session->task(), [this](uint64_t a, std::span<uint8_t> b) { hide_traps(a, b); });
  };
  if (p.legs.empty() || !counting_allowed() || at_exit || at_end) return kReplayPath;
  // A tail of single steps after the last Continue (stepi after the stop).
  size_t tail = p.legs.size();
  while (tail > 0 && p.legs[tail - 1].motion == Motion::Step) tail--;
  // Before it: Continues stopped at a breakpoint, each after GDB's single
  // step over it (a Step leg of 1, which does not arrive there again); the
  // legs before those (a few steps, say) are replayed as they are.
  size_t first = tail;
  uint64_t legs = 0;
  std::set<uint64_t> candidates;
  while (first > 0) {
    const Leg& leg = p.legs[first - 1];
    const bool stopped = leg.motion == Motion::Continue && leg.traps.watches.empty() && !leg.traps.breakpoints.empty();
    const bool step_over = leg.motion == Motion::Step && leg.count == 1 && legs > 0;
    if (!stopped && !step_over) break;
    if (stopped) {
      if (legs == 0) candidates = leg.traps.breakpoints;
      std::set<uint64_t> both;
      for (uint64_t b : leg.traps.breakpoints)
        if (candidates.count(b)) both.insert(b);
      candidates = both;
      legs += leg.count;
    }
    first--;
  }
  if (legs == 0 || candidates.empty()) return kReplayPath;
  const uint64_t k = segment, e = cursor;
  if (p.base.k != k || p.base.e != e) return kReplayPath;  // the legs crossed an event
  // Without a tail the stops were at pc itself.
  if (tail == p.legs.size()) {
    if (!candidates.count(pc)) return kReplayPath;
    candidates = {pc};
  }
  const PositionPrint before = TRY(fingerprint());
  const Path head{p.base, std::vector<Leg>(p.legs.begin(), p.legs.begin() + first)};
  // Which breakpoint stopped the legs (GDB's own in ld.so rarely runs): each
  // candidate X is tried; the position must then look the same.
  for (uint64_t x : candidates) {
    // Arrivals at x up to the head's end, counted by a stub (the user's int3
    // on x would trap at each one instead: set aside for this run).
    const TrapSet saved_user = user;
    user.breakpoints.erase(x);
    Status counted = reach(head, x);
    user = saved_user;
    TRY(std::move(counted));
    if (segment != k || cursor != e) return kReplayPath;
    TRY(fold_counter());
    const uint64_t c0 = count_value;
    TRY(set_count_probe(std::nullopt));
    const Moment stop{k, e, x, c0 + legs};
    Path shorter{Base::at(stop), std::vector<Leg>(p.legs.begin() + tail, p.legs.end())};
    // The current pc counted on the way, for the moment of the position.
    Status there = reach(shorter, pc);
    if (!there.ok()) {
      SLSDBG_DEBUG("timeline", "resolve: %s not reached (%s)", stop.to_string().c_str(), there.error().message.c_str());
      continue;
    }
    TRY(fold_counter());
    const Moment m{segment, cursor, pc, std::max<uint64_t>(count_value, 1)};
    TRY(set_count_probe(std::nullopt));
    const PositionPrint after = TRY(fingerprint());
    if (pc_now() != pc || segment != k || cursor != e || !(before == after)) {
      SLSDBG_DEBUG("timeline", "resolve: %s + %zu legs by counting is not the position; trying on",
                   stop.to_string().c_str(), p.legs.size() - tail);
      continue;
    }
    SLSDBG_DEBUG("timeline", "resolve: %s by one counted run instead of %llu legs (%llu Continue)",
                 m.to_string().c_str(), (unsigned long long)(tail - first), (unsigned long long)legs);
    return std::optional<Moment>{m};
  }
  return kReplayPath;
}

}  // namespace slsdbg::replay
