// A reverse continue with watches searches a segment's tail first
// (windows from late arrivals at the pc most hits came back at).
#include "engine/replay/threaded_timeline_impl.h"

namespace slsdbg::replay {

Status ThreadedTimeline::Impl::open_window() {
  TRY(stop_counting());
  window_open = true;
  SLSDBG_DEBUG("replay", "segment %llu: the window opens at %s", (unsigned long long)k, cur.to_string().c_str());
  return arm_late_watches();
}

Status ThreadedTimeline::Impl::add_hit(Hit h) {
  if (window_from && !window_open) return ok_status();
  hits.push_back(std::move(h));
  if (hits.size() < collect_cap) return ok_status();
  collect_capped = true;
  return finish_collect();
}

// `from`: the position, or an earlier segment's end
Result<ThreadedTimeline::Impl::TailResult> ThreadedTimeline::Impl::backward_in_tail(const Position& from) {
  if (user_watches.empty() || catching || fork_stops || vfork_stops || from.watch || counting_turned_off() ||
      (from.is_start() && from.steps.empty()))
    return TailResult{};
  collect_cap = kTailAnchorCap;
  Result<std::vector<Hit>> capped = collect(from.k, from);
  const bool was_capped = collect_capped;
  collect_cap = SIZE_MAX;
  std::vector<Hit> first = TRY(std::move(capped));
  if (!was_capped) {  // every hit of the segment before `from`, as the plain search collects them
    if (first.empty()) return TailResult{std::nullopt, true};
    return TailResult{TRY(land_on(first.back())), false};
  }
  std::map<std::pair<int32_t, uint64_t>, size_t> seen;
  for (const Hit& h : first)
    if (h.watch) seen[{h.thread.value, h.at.pc}]++;
  std::pair<int32_t, uint64_t> anchor{};
  size_t most = 0;
  for (const auto& [key, n] : seen)
    if (n > most) {
      anchor = key;
      most = n;
    }
  if (most < 2) return TailResult{};
  const Tid ta(anchor.first);
  const uint64_t pa = anchor.second;
  // The anchor's arrivals before `from`: a seek there counting them, or
  // to a segment's end a window that never opens.
  uint64_t arrivals = 0;
  if (from.end) {
    TRY(collect_window(from, Position{from.k, false, ta, pa, UINT64_MAX, {}}, {pa}));
    arrivals = std::max(counts[{ta.value, pa}], counters.count(ta, pa));
  } else {
    also_counted = {pa};
    Status there = seek(from);
    also_counted.clear();
    TRY(std::move(there));
    arrivals = counts[{ta.value, pa}];
  }
  if (from.tid == ta && from.pc == pa && from.n > 0 && from.steps.empty() && !from.event && from.resume_m == 0)
    arrivals = from.n - 1;  // `from` is one of them
  SLSDBG_DEBUG("replay", "reverse-continue: the tail of %s first, from thread %d's arrivals at %s (%llu before it)",
               from.to_string().c_str(), ta.value, hex_of(pa).c_str(), (unsigned long long)arrivals);
  std::set<uint64_t> pcs{pa};
  for (uint64_t back = 1; arrivals > 0; back = std::min(back * kTailWiden, arrivals)) {
    if (interrupt_requested()) {
      // Back where the search began: the position, or the start of the
      // segment after the one searched.
      ThreadedStop at = TRY(from.end ? goto_checkpoint(from.k + 1) : goto_position(from));
      at.stop.cause = StopCause::Interrupted;
      at.stop.back_where_started = !from.end;
      stop = at;
      return TailResult{at, false};
    }
    const Position start{from.k, false, ta, pa, arrivals - back + 1, {}};
    std::vector<Hit> found = TRY(collect_window(from, start, pcs));
    SLSDBG_DEBUG("replay", "reverse-continue: window from %s: %zu hits", start.to_string().c_str(), found.size());
    const auto unnamed = [](const Hit& h) { return h.watch && !h.before_known && h.at.n == 0; };
    if (!found.empty() && unnamed(found.back())) {
      // The pc after the last access is not counted yet: the same window
      // again, counting it (the run repeats the same accesses).
      pcs.insert(found.back().at.pc);
      found = TRY(collect_window(from, start, pcs));
      if (found.empty() || unnamed(found.back()))
        return Error::msg("internal: a window's last watched access was not named again");
    }
    if (!found.empty()) return TailResult{TRY(land_on(found.back())), false};
    if (back == arrivals) break;
  }
  return TailResult{};
}

Result<std::vector<ThreadedTimeline::Impl::Hit>> ThreadedTimeline::Impl::collect_window(const Position& t,
                                                                                        const Position& start, const std::set<uint64_t>& pcs) {
  window_from = start;
  window_pcs = pcs;
  Result<std::vector<Hit>> r = collect(t.k, t);
  window_from.reset();
  window_pcs.clear();
  return r;
}

}  // namespace slsdbg::replay
