// The position right before another in a threaded recording (reverse
// steps): located by the thread's resumes and its arrivals, measured by single steps.
#include "engine/replay/threaded_timeline_impl.h"

namespace slsdbg::replay {

std::optional<uint64_t> ThreadedTimeline::Impl::call_site_of(Tid t) {
  process::Task* task = task_of_thread(t);
  if (!task) return std::nullopt;
  const Result<user_regs_struct> r = task->regs();
  if (!r.ok()) return std::nullopt;
  if (!in_sysbuf_stub(r->rip)) return r->rip - 2;
  const std::optional<process::SysbufCallSite> cs =
      process::sysbuf_call_site(r->rip, r->rsp, [task](uint64_t addr, std::span<uint8_t> out) {
        return task->read_memory(RemoteAddr(addr), out).ok();
      });
  if (!cs) return std::nullopt;
  // Its pc is glibc's `syscall`, or the instruction after it once run.
  return r->rip == process::sysbuf_stub_layout().slow ? cs->pc : cs->pc - 2;
}

Result<std::optional<ThreadedPosition>> ThreadedTimeline::Impl::call_site_arrival(const Position& at_call,
                                                                                  uint64_t site) {
  const bool had = user_bps.count(site) != 0;
  user_bps.insert(site);
  const bool refused = std::exchange(counters_refused, true);
  Status reached = seek(at_call);
  counters_refused = refused;
  const uint64_t n = counts[{at_call.tid.value, site}];
  if (!had) user_bps.erase(site);
  TRY(std::move(reached));
  if (n == 0) return std::optional<Position>();
  return std::optional<Position>(Position{at_call.k, false, at_call.tid, site, n, {}});
}

Result<ThreadedPosition> ThreadedTimeline::Impl::position_before(const Position arrival) {  // a copy: runs reset cur
  // Before a watched access named by its count, every run counts the
  // accesses from its restore (way_in checks them at the ways' seeks).
  const bool exact = std::exchange(exact_watches, exact_watches || arrival.watch.has_value());
  Result<Position> p = position_before_impl(arrival);
  exact_watches = exact;
  return p;
}

Result<ThreadedPosition> ThreadedTimeline::Impl::position_before_impl(const Position arrival) {
  // A watched access: the ways into the pc after it, read standing there
  // (one more replay of the segment when a reverse scan found it), so
  // that no single steps run from the thread's last resume, however far
  // that is (a store deep in a CPU-bound stretch).
  if (arrival.watch && arrival.steps.empty() && !(cur.same_anchor(arrival) && cur.steps.empty()))
    TRY(seek(arrival));
  // The ways into pc (ways_in.h), read while the thread stands at the arrival.
  std::optional<uint64_t> rsp;
  if (arrival.steps.empty())
    if (process::Task* task = task_of_thread(arrival.tid))
      if (Result<user_regs_struct> r = task->regs(); r.ok() && r->rip == arrival.pc) rsp = r->rsp;
  target = arrival;
  located_m = located_j = 0;  // kept across the next run, which needs them
  std::vector<WayIn> ways;
  if (rsp) ways = TRY(locate_with_ways(arrival.pc, *rsp, std::nullopt, true));
  else TRY(locate_run(true));
  if (!target_reached || located_m == 0) return Error::msg("internal: the breakpoint arrival was not found again");
  // Each way's arrivals up to this one (a way at pc itself: those before it).
  // (A watch's n counts accesses, not arrivals at pc.)
  const std::vector<std::pair<WayIn, uint64_t>> counted =
      counted_ways(arrival.tid, ways, arrival.pc, arrival.watch ? 0 : arrival.n);
  if (located_j >= 2 && !arrival.watch) {
    // Its previous arrival at pc came after that resume: a loop's last
    // iteration is the way, not everything since the resume.
    const Position arrival_copy = arrival;
    Result<Position> p = position_before_by_previous_arrival(arrival_copy);
    if (p.ok()) return p;
    SLSDBG_DEBUG("replay", "reverse step from the previous arrival: %s", p.error().message.c_str());
    target = arrival;
  }
  if (!counted.empty()) {
    // The way in after whose last arrival the thread's next one at pc is
    // this one (arrival n - 1 counted there): no single steps from the
    // resume, however far that is.
    if (!arrival.watch) also_counted.insert(arrival.pc);
    Result<std::optional<Position>> way = way_in(arrival.k, arrival.tid, counted, [&](const user_regs_struct& r) {
      if (r.rip != arrival.pc) return false;
      if (arrival.watch) return wcounts[{arrival.tid.value, arrival.pc, *arrival.watch}] == arrival.n;
      return arrivals_of(arrival.tid, arrival.pc) + 1 == arrival.n;
    });
    also_counted.clear();
    if (std::optional<Position> p = TRY(std::move(way))) return *p;
    target = arrival;
  }
  target.resume_m = located_m;
  measure_end = MeasureEnd::Arrival;
  SLSDBG_DEBUG("replay", "reverse step: thread %d's arrival follows its resume %llu (arrival %llu since)",
               arrival.tid.value, (unsigned long long)located_m, (unsigned long long)located_j);
  TRY(start_run(arrival.k, Mode::Measure));
  TRY(drive());
  TRY(check_outcome(true));
  if (!target_reached) return Error::msg("internal: single steps did not reach the breakpoint arrival");
  // At the resume itself: the instruction before is the call (or rdtsc)
  // the thread was resumed from.
  if (measured == 0) return position_before_resume(arrival.k, arrival.tid, located_m);
  return Position{arrival.k, false, arrival.tid, 0, 0, std::vector<Tid>(measured - 1, arrival.tid), located_m};
}

Status ThreadedTimeline::Impl::locate_run(bool aborted_ok) {
  TRY(start_run(target.k, Mode::Locate));
  TRY(drive());
  return check_outcome(aborted_ok);
}

Result<std::vector<WayIn>> ThreadedTimeline::Impl::locate_with_ways(uint64_t pc, uint64_t rsp,
                                                                    std::optional<uint64_t> except, bool aborted_ok) {
  WaysWanted w{pc, std::nullopt, except};
  uint64_t word = 0;
  if (process::Task* task = any_task())
    if (task->read_memory(RemoteAddr(rsp), {reinterpret_cast<uint8_t*>(&word), sizeof word}).ok()) w.at_rsp = word;
  ways_wanted = w;
  ways_found.clear();
  Status located = locate_run(aborted_ok);
  ways_wanted.reset();
  also_counted.clear();
  TRY(std::move(located));
  return std::move(ways_found);
}

process::Task* ThreadedTimeline::Impl::task_of_thread(Tid t) {
  for (SegmentThread& th : live)
    if (th.recorded == t) return th.task;
  return nullptr;
}

uint64_t ThreadedTimeline::Impl::arrivals_of(Tid t, uint64_t pc) const {
  auto it = counts.find({t.value, pc});
  return std::max(it == counts.end() ? 0 : it->second, counters.count(t, pc));
}

std::vector<std::pair<WayIn, uint64_t>> ThreadedTimeline::Impl::counted_ways(Tid t, const std::vector<WayIn>& ways,
                                                                             uint64_t at,
                                                     uint64_t n) const {
  std::vector<std::pair<WayIn, uint64_t>> out;
  for (const WayIn& w : ways) {
    if (w.count_at != at) out.emplace_back(w, arrivals_of(t, w.count_at));
    else if (w.steps == 0 && n > 0) out.emplace_back(w, n - 1);
  }
  return out;
}

bool ThreadedTimeline::Impl::wide_sites() {
  if (user_watches.empty() && !target.watch && !(goto_seek && mode == Mode::Seek)) return false;
  return !in_go_code();
}

bool ThreadedTimeline::Impl::in_go_code() {
  auto it = go_code_by_segment.find(k);
  if (it == go_code_by_segment.end()) {
    process::Task* task = any_task();
    if (!task) return true;  // not known: as Go code, one-instruction sites
    it = go_code_by_segment.emplace(k, maps_go_code(*task)).first;
  }
  return it->second;
}

std::set<uint64_t> ThreadedTimeline::Impl::wide_breakpoints(const std::set<uint64_t>& stubbed) {
  std::set<uint64_t> out;
  if (mode != Mode::Collect && mode != Mode::Seek && mode != Mode::Locate) return out;
  for (uint64_t pc : stubbed)
    if (user_bps.count(pc) && !also_counted.count(pc)) out.insert(pc);
  if (!out.empty() && in_go_code()) out.clear();
  return out;
}

std::vector<uint64_t> ThreadedTimeline::Impl::next_checkpoint_pcs() {
  std::vector<uint64_t> pcs;
  if (k + 1 < checkpoints)
    if (Result<store::ProcessState> next = reader.process_state(CheckpointId(k + 1)); next.ok())
      for (const store::ThreadState& t : next->threads) pcs.push_back(t.regs.rip);
  return pcs;
}

std::function<bool(uint64_t)> ThreadedTimeline::Impl::countable_in(const CodeReader& read) {
  return [&read, wide = wide_sites(), clear = checkpoint_patch_ranges(next_checkpoint_pcs(), read)](uint64_t at) {
    const std::vector<PatchSite> sites = counter_sites(at, read, wide);
    return std::any_of(sites.begin(), sites.end(), [&](const PatchSite& s) { return clear_of(s, clear); });
  };
}

std::vector<WayIn> ThreadedTimeline::Impl::ways_into(uint64_t pc, std::optional<uint64_t> at_rsp) {
  process::Task* task = any_task();
  if (!task || !counters.empty() || !inserted.empty()) return {};
  const CodeReader read = task_code_reader(*task);
  return ways_in(pc, at_rsp, read, countable_in(read));
}

std::vector<WayIn> ThreadedTimeline::Impl::later_site(uint64_t pc) {
  process::Task* task = any_task();
  if (!task || !counters.empty() || !inserted.empty()) return {};
  const CodeReader read = task_code_reader(*task);
  std::optional<WayIn> w = later_count_site(pc, read, countable_in(read));
  return w ? std::vector<WayIn>{*w} : std::vector<WayIn>{};
}

Result<std::optional<ThreadedPosition>> ThreadedTimeline::Impl::way_in(uint64_t seg, Tid t,
                                                                                       const std::vector<std::pair<WayIn, uint64_t>>& ways,
                                       const std::function<bool(const user_regs_struct&)>& is_next) {
  for (const auto& [way, c] : ways) {
    if (c == 0) continue;
    const uint64_t prev = way.count_at;
    const Position p{seg, false, t, prev, c, std::vector<Tid>(way.steps, t)};
    Position stepped = p;
    stepped.steps.push_back(t);
    Status st = seek(stepped);
    process::Task* task = st.ok() ? task_of_thread(t) : nullptr;
    Result<user_regs_struct> r = task ? task->regs() : Result<user_regs_struct>(Error::msg("no such thread"));
    const bool next = r.ok() && is_next(*r);
    SLSDBG_DEBUG("replay", "reverse step: thread %d's arrival %llu at 0x%llx %s", t.value, (unsigned long long)c,
                 (unsigned long long)prev,
                 next ? "is the way in" : st.ok() ? "is not the way in" : st.error().message.c_str());
    if (next) return std::optional<Position>(p);
  }
  return std::optional<Position>();
}

Result<ThreadedPosition> ThreadedTimeline::Impl::position_before_by_previous_arrival(const Position& arrival) {
  Position previous{arrival.k, false, arrival.tid, arrival.pc, arrival.n - 1, {}};
  TRY(seek(previous));
  for (uint64_t s = 1; s <= kMaxStepsFromPreviousArrival; s++) {
    ThreadedStop st = TRY(forward(Motion::Step, arrival.tid));
    if (st.stop.cause != StopCause::Step || st.thread != arrival.tid || k != arrival.k)
      return Error::msg("another stop came first");
    if (st.stop.pc == arrival.pc) {
      previous.steps.assign(s - 1, arrival.tid);
      return previous;
    }
  }
  return Error::msg("more than " + std::to_string(kMaxStepsFromPreviousArrival) + " instructions since");
}

Result<ThreadedPosition> ThreadedTimeline::Impl::position_before_checkpoint(uint64_t k_now) {
  const Tid t = running_thread_of(k_now);
  const uint64_t seg = k_now - 1;
  store::ProcessState next = TRY(reader.process_state(CheckpointId(k_now)));
  const store::ThreadState* want = nullptr;
  for (const store::ThreadState& th : next.threads)
    if (th.tid == t) want = &th;
  if (!want) return Error::msg("internal: checkpoint " + std::to_string(k_now) + " lacks its running thread");
  const user_regs_struct want_regs = want->regs;
  target = Position{seg, true, t};
  // Its visit at the checkpoint is thread_reach's, not a count of ours.
  const std::vector<WayIn> ways = TRY(locate_with_ways(want_regs.rip, want_regs.rsp, want_regs.rip, false));
  const uint64_t last = resumes[t.value];
  if (last == 0)
    return Error::unsupported("thread " + std::to_string(t.value) + " did not run in segment " + std::to_string(seg) +
                              ": a reverse step from checkpoint " + std::to_string(k_now) +
                              "'s start is not supported yet there");
  // The way in whose last arrival in the segment is followed by the checkpoint's registers.
  std::optional<Position> way = TRY(way_in(seg, t, counted_ways(t, ways, 0, 0), [&](const user_regs_struct& r) {
    return same_regs(r, want_regs);
  }));
  if (way) return *way;
  Result<Position> later = position_before_checkpoint_by_later_site(seg, t, want_regs);
  if (later.ok()) return *later;
  SLSDBG_DEBUG("replay", "reverse step from checkpoint %llu by a later site: %s", (unsigned long long)k_now,
               later.error().message.c_str());
  target = Position{seg, true, t, 0, 0, {}, last};
  measure_end = MeasureEnd::Registers;
  measure_want = want->regs;
  TRY(start_run(seg, Mode::Measure));
  TRY(drive());
  TRY(check_outcome(true));
  if (!target_reached) return Error::msg("internal: single steps did not reach checkpoint " + std::to_string(k_now));
  SLSDBG_DEBUG("replay", "reverse step from checkpoint %llu: thread %d's resume %llu, then %llu instructions",
               (unsigned long long)k_now, t.value, (unsigned long long)last, (unsigned long long)measured);
  if (measured > 0) return Position{seg, false, t, 0, 0, std::vector<Tid>(measured - 1, t), last};
  return position_before_resume(seg, t, last);
}

Result<ThreadedPosition> ThreadedTimeline::Impl::position_before_checkpoint_by_later_site(uint64_t seg, Tid t,
                                                                                          const user_regs_struct& want) {
  target = Position{seg, true, t};
  ways_wanted = WaysWanted{want.rip, std::nullopt, std::nullopt, true};
  ways_found.clear();
  Status located = locate_run(false);
  ways_wanted.reset();
  also_counted.clear();
  TRY(std::move(located));
  if (ways_found.empty()) return Error::msg("no countable instruction follows the checkpoint's pc");
  const uint64_t site = ways_found.front().count_at;
  const uint64_t c = arrivals_of(t, site);
  if (c == 0) return Error::msg("the thread did not reach the site after the checkpoint's pc in the segment");
  Position from{seg, false, t, site, c, {}};
  TRY(seek(from));
  for (uint64_t s = 1; s <= kMaxStepsFromPreviousArrival; s++) {
    const ThreadedStop st = TRY(forward(Motion::Step, t));
    if (st.stop.cause != StopCause::Step || st.thread != t || k != seg) return Error::msg("another stop came first");
    process::Task* task = task_of_thread(t);
    if (!task) return Error::msg("the thread is gone");
    if (same_regs(TRY(task->regs()), want)) {
      from.steps.assign(s - 1, t);
      return from;
    }
  }
  return Error::msg("more than " + std::to_string(kMaxStepsFromPreviousArrival) +
                    " instructions from the site's last arrival to the checkpoint");
}

Result<ThreadedPosition> ThreadedTimeline::Impl::position_before_resume(uint64_t seg, Tid t,
                                                                                        uint64_t m, bool program_code) {
  if (m < 2)
    return Error::unsupported("thread " + std::to_string(t.value) + " has not run since checkpoint " +
                              std::to_string(seg) + "'s start: a reverse step from here is not supported yet");
  target = Position{seg, false, t, 0, 0, {}, m - 1};
  measure_end = MeasureEnd::NextResume;
  TRY(start_run(seg, Mode::Measure));
  TRY(drive());
  TRY(check_outcome(true));
  if (!target_reached || measured == 0)
    return Error::msg("internal: thread " + std::to_string(t.value) + "'s resume " + std::to_string(m) +
                      " was not found again");
  const uint64_t steps = program_code && measured_in_program != kNone ? measured_in_program : measured;
  return Position{seg, false, t, 0, 0, std::vector<Tid>(steps, t), m - 1};
}

Result<ThreadedStop> ThreadedTimeline::Impl::land_on(const Hit& h) {
  if (!h.watch) {
    TRY(seek(h.at));
    return stop;
  }
  Result<Position> before = h.at;
  if (!h.before_known && !h.at.watch) {
    before = Error::msg("the thread's first arrival there");
    if (h.at.n >= 2) before = position_before_by_previous_arrival(h.at);
    if (!before.ok()) {
      SLSDBG_DEBUG("replay", "reverse-continue: not from the previous arrival (%s)", before.error().message.c_str());
      TRY(seek(h.at));
      before = position_before(h.at);
    }
  } else if (!h.before_known) {
    before = position_before(h.at);
  }
  TRY(seek(TRY(std::move(before))));
  stop = watch_stop(h.thread, *h.watch, stop.stop.pc);
  return stop;
}

}  // namespace slsdbg::replay
