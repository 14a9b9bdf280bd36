// A reverse continue with watchpoints looks at the tail of the current
// event window first. Scanning from the checkpoint traps at every access
// to the watched bytes: a variable written in a hot loop costs one stop
// per iteration (2.5*10^5 iterations back: a minute; 2.5*10^6: ten), when
// the answer is usually one iteration back. Here the window [m, c) is
// scanned instead, m an earlier arrival at an anchor pc (counted in the
// tracee on the way there, no trap per visit), widening 8-fold while it
// holds no stop. Any m before c is correct: [m, c) is the end of history
// before c, so its last stop is the answer if it has one. The anchor is
// c's own pc when c is not its first arrival (a stop inside a loop), or
// else the pc most of a capped scan's first stops came back at (the
// loop's write, seen from a stop after the loop).
//
// An earlier segment whose later ones hold no stop (the loop's last write
// lies checkpoints back) is searched the same way before it is scanned
// whole: its tail, from the anchor's arrivals in its last event window
// (the pc most of a capped scan's stops came back at) to its end.
#include <algorithm>
#include <map>

#include "common/log.h"
#include "engine/replay/timeline_impl.h"

namespace slsdbg::replay {

namespace {
constexpr uint64_t kWiden = 8;
// Stops a scan collects before its pcs are taken as an anchor instead.
constexpr size_t kAnchorCap = 64;

// The pc most of `first` came back at (at least twice), if any.
std::optional<uint64_t> most_seen_pc(const std::vector<Hit>& first) {
  std::map<uint64_t, size_t> seen;
  for (const Hit& h : first) seen[h.pc]++;
  uint64_t pc = 0;
  size_t most = 0;
  for (const auto& [p, n] : seen)
    if (n > most) {
      pc = p;
      most = n;
    }
  if (most < 2) return std::nullopt;
  return pc;
}
}  // namespace

const Hit* latest_stop(const std::vector<Hit>& hits) {
  const Hit* best = nullptr;
  for (const Hit& h : hits)
    if (h.why == PauseWhy::Breakpoint || h.why == PauseWhy::Watchpoint) best = &h;
  return best;
}

Result<std::vector<Hit>> Timeline::Impl::scan_window_once(const Moment& from, std::optional<Moment> until) {
  // There with no trap but the counting (the target's, at from.pc), and
  // until.pc's arrivals up to `from` counted on the way.
  const bool count_until = until && from.pc != until->pc;
  TRY(reach_base(Base::at(from), count_until ? std::optional<uint64_t>(until->pc) : std::nullopt));
  uint64_t until_arrivals = from.n;
  if (count_until) {
    TRY(fold_counter());
    until_arrivals = count_value;
    TRY(set_count_probe(std::nullopt));
  }
  TRY(set_traps(user));
  configure_scan(user, std::nullopt);
  if (until) {
    TRY(set_target_probe(*until));
    target_count = until_arrivals;
  }
  hits.clear();
  ordinal = 0;
  flow_limit = from.checkpoint;
  Result<DriveResult> dr = drive(true);
  flow_limit = UINT64_MAX;
  collect = false;
  DriveResult d = TRY(std::move(dr));
  if (d.halt == Halt::Diverged) return Error::msg(d.divergence ? d.divergence->describe() : "replay diverged");
  if (until && (d.halt != Halt::Paused || why != PauseWhy::Target))
    return Error::msg("internal: the current moment " + until->to_string() + " was not found again after " +
                      from.to_string());
  return hits;
}

Result<std::optional<TimelineStop>> Timeline::Impl::widening_windows(uint64_t k, uint64_t e, uint64_t anchor,
                                                                      uint64_t arrivals, std::optional<Moment> until) {
  // The d-th arrival back: arrival `arrivals` is the latest (d = 1), as far
  // back as the first one.
  for (uint64_t back = 1;; back = std::min(back * kWiden, arrivals)) {
    if (options.interrupted && options.interrupted()) return std::optional<TimelineStop>(TRY(interrupted_back()));
    const Moment from{k, e, anchor, arrivals - back + 1};
    // To a segment's end: no retry with debug-register probes (a failure
    // falls back to the segment's scan).
    std::vector<Hit> found = until ? TRY(scan_window(from, *until)) : TRY(scan_window_once(from, std::nullopt));
    segments_replayed++;
    SLSDBG_DEBUG("timeline", "reverse-continue: window from %s%s: %zu stops", from.to_string().c_str(),
                 until ? "" : " to the segment's end", found.size());
    const Hit* best = latest_stop(found);
    if (!best && back == arrivals) break;
    if (!best) continue;
    const Path to_stop{Base::at(from), {Leg{Motion::Continue, best->ordinal + 1, user}}};
    return std::optional<TimelineStop>(TRY(land_on_hit(to_stop, *best)));
  }
  return std::optional<TimelineStop>();
}

Result<std::vector<Hit>> Timeline::Impl::scan_capped_once(const Moment& c, size_t cap) {
  collect_cap = cap;
  Result<std::vector<Hit>> r = scan_once(c.checkpoint, c.checkpoint, c);
  collect_cap = SIZE_MAX;
  return r;
}

// The pc most of a capped scan's stops came back at, in c's window.
Result<std::optional<uint64_t>> Timeline::Impl::hot_stop_pc(const Moment& c) {
  std::vector<Hit> first = TRY(scan_capped(c, kAnchorCap));
  if (first.size() < kAnchorCap) return std::optional<uint64_t>();  // the scan saw them all: nothing to gain
  return most_seen_pc(first);
}

Result<std::optional<TimelineStop>> Timeline::Impl::reverse_continue_in_tail(const Moment& c) {
  if (user.watches.empty() || !counting_allowed() || c.checkpoint != segment) return std::optional<TimelineStop>();
  // The anchor and how often it ran in c's window before c.
  uint64_t anchor = c.pc, arrivals = c.n - 1;
  if (arrivals == 0) {
    std::optional<uint64_t> hot = TRY(hot_stop_pc(c));
    if (!hot) return std::optional<TimelineStop>();
    std::optional<Moment> last = TRY(last_arrival_before(c, *hot));
    if (!last) return std::optional<TimelineStop>();
    anchor = *hot;
    arrivals = last->n;
  }
  SLSDBG_DEBUG("timeline", "reverse-continue: the tail of %s first, from arrivals at %s (%llu before it)",
               c.to_string().c_str(), hex_addr(anchor).c_str(), (unsigned long long)arrivals);
  return widening_windows(c.checkpoint, c.event, anchor, arrivals, c);
}

Result<uint64_t> Timeline::Impl::count_to_segment_end_once(uint64_t s, uint64_t e, uint64_t pc) {
  TRY(reach_base(Base::after(s, e), pc));
  TRY(set_traps(TrapSet{}));
  flow_limit = s;
  Result<DriveResult> dr = drive(true);
  flow_limit = UINT64_MAX;
  return closed_window_count(TRY(std::move(dr)), s);
}

Result<Timeline::Impl::SegmentTail> Timeline::Impl::reverse_continue_in_segment_tail(uint64_t s) {
  if (user.watches.empty() || !counting_allowed()) return SegmentTail{};
  collect_cap = kAnchorCap;
  Result<std::vector<Hit>> capped = scan(s, s, std::nullopt);
  collect_cap = SIZE_MAX;
  const std::vector<Hit> first = TRY(std::move(capped));
  segments_replayed++;
  if (first.size() < kAnchorCap) {  // every stop of s: its last is the answer
    const Hit* best = latest_stop(first);
    if (!best) return SegmentTail{std::nullopt, true};
    return SegmentTail{TRY(land_on_scan_hit(s, *best)), false};
  }
  const std::optional<uint64_t> hot = most_seen_pc(first);
  if (!hot) return SegmentTail{};
  const uint64_t e = reader.checkpoints()[s].segment_events;
  const uint64_t arrivals = TRY(count_to_segment_end_once(s, e, *hot));
  SLSDBG_DEBUG("timeline", "reverse-continue: the tail of segment %llu first, from arrivals at %s (%llu in its last window)",
               (unsigned long long)s, hex_addr(*hot).c_str(), (unsigned long long)arrivals);
  if (arrivals == 0) return SegmentTail{};
  return SegmentTail{TRY(widening_windows(s, e, *hot, arrivals, std::nullopt)), false};
}

}  // namespace slsdbg::replay
