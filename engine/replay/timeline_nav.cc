// The Timeline's moves: reaching a Path, forward resumption, resolving the
// current Moment, reverse continue (re-running segments while collecting
// hits) and reverse step (single-stepping forward from an exact earlier point).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "common/log.h"
#include "engine/replay/timeline_impl.h"

namespace slsdbg::replay {

namespace {

std::string where(const Base& b) {
  if (b.after_event) return "segment " + std::to_string(b.k) + " after event " + std::to_string(b.e);
  return "moment " + Moment{b.k, b.e, b.pc, b.n}.to_string();
}

}  // namespace

Timeline::Impl::Impl(const store::RecordingReader& r, TimelineOptions o) : reader(r), options(std::move(o)) {}

Status Timeline::Impl::fresh(uint64_t k, SnapshotCache::Use use) {
  if (tracee_published) tracee_published->store(0);
  session.reset();
  forget_counter();
  if (!snapshots) snapshots = std::make_unique<SnapshotCache>(reader, options.max_snapshots);
  auto forked = snapshots->session_at(CheckpointId(k), use);
  if (!forked.ok()) {
    // A snapshot that cannot fork: restore instead (and say why once).
    SLSDBG_DEBUG("timeline", "snapshot of checkpoint %llu unusable: %s", (unsigned long long)k,
                 forked.error().message.c_str());
    forked = ReplaySession::start(reader, CheckpointId(k));
  }
  session = TRY(std::move(forked));
  if (tracee_published) tracee_published->store(session->task().tgid());
  SLSDBG_DEBUG("timeline", "a session from checkpoint %llu", (unsigned long long)k);
  session->set_observer(this);
  segment = k;
  cursor = 0;
  inserted.clear();
  stepping = false;
  stepping_syscall = false;
  pause_at_syscall_exit = PauseWhy::None;
  lifted_bp.reset();
  step_over_pending = true;
  why = PauseWhy::None;
  at_exit = false;
  at_end = false;
  TRY(insert_breakpoint_bytes());
  reset_counts();
  TRY(assign_slots());
  TRY(apply_debug_registers());
  if (count_landing(true)) why = PauseWhy::Target;
  return ok_status();
}

Result<DriveResult> Timeline::Impl::drive(bool flow) {
  for (;;) {
    why = PauseWhy::None;
    const bool was_stepping = stepping;
    SegmentOutcome out = TRY(session->run_segment());
    switch (out.end) {
      case SegmentEnd::Paused: return DriveResult{Halt::Paused};
      case SegmentEnd::ReachedByExecution:
      case SegmentEnd::ReachedByRestore: {
        const bool restored = out.end == SegmentEnd::ReachedByRestore;
        if (!restored) TRY(fold_counter());
        // A forced checkpoint replaced the process: its last counts are gone.
        if (restored && !counters.empty() && !counted_bps.empty()) counted_bp_refused = true;
        close_window();
        segment++;
        cursor = 0;
        if (restored) {
          forget_counter();
          inserted.clear();
          stepping = false;
          stepping_syscall = false;
          lifted_bp.reset();
          TRY(insert_breakpoint_bytes());
          TRY(apply_debug_registers());
        }
        count_at_event = count_value;  // a forced checkpoint's syscall (before_event counts its arrivals)
        reset_counts();
        if (!flow || segment > flow_limit) {
          end_step();
          step_over_pending = true;
          DriveResult d{Halt::SegmentEnd};
          d.boundary_by_restore = restored;
          return d;
        }
        // A user's forward move stops where an execve put a new image, so
        // that the debugger loads its symbols (as it would live).
        if (restored && stop_at_user && !collect && reader.checkpoints()[segment].reason == "exec") {
          stop_here(PauseWhy::Exec, true);
          return DriveResult{Halt::Paused};
        }
        if (restored && was_stepping && motion == Motion::Step) {
          stop_here(PauseWhy::Step, true);
          return DriveResult{Halt::Paused};
        }
        // A long run without events can still be interrupted at each checkpoint.
        if (interruptible && options.interrupted && options.interrupted()) {
          end_step();
          stop_here(PauseWhy::Interrupted, true);
          return DriveResult{Halt::Paused};
        }
        if (skip_forward) {
          // Segments that cannot write the watched bytes (nor stop a forward
          // Continue otherwise) are not replayed: restore the next one that can.
          uint64_t k = segment;
          while (k + 1 < checkpoints && !skip_forward->must_replay(k, WriteFilter::Use::Forward)) k++;
          if (k != segment) {
            SLSDBG_DEBUG("timeline", "continue: segments %llu..%llu skipped (no write to the watched bytes)",
                         (unsigned long long)segment, (unsigned long long)k - 1);
            segments_skipped += k - segment;
            TRY(fresh(k));
            if (why == PauseWhy::Target) return DriveResult{Halt::Paused};
          }
          segments_replayed++;
        }
        continue;
      }
      case SegmentEnd::EndOfHistory: {
        if (session->task().regs().ok()) return DriveResult{Halt::HistoryEnd};
        DriveResult d{Halt::Killed};
        auto events = reader.segment_events(SegmentId(segment));
        if (events.ok() && !events->empty()) d.signo = events->back().signo;
        return d;
      }
      case SegmentEnd::Diverged: {
        const bool last = segment + 1 >= checkpoints;
        const uint64_t count = reader.checkpoints()[segment].segment_events;
        if (last && out.divergence && out.divergence->event_index >= count) return DriveResult{Halt::HistoryEnd};
        DriveResult d{Halt::Diverged};
        d.divergence = out.divergence;
        return d;
      }
    }
  }
}

// Re-running a recorded path: the user's breakpoints only (for their
// counts), no user-visible stops, counting arrivals at `probe_pc`.
void Timeline::Impl::configure_replay_run(std::optional<uint64_t> probe_pc) {
  active = TrapSet{user.breakpoints, {}};
  stop_at_user = false;
  collect = false;
  pause_signals = false;
  motion = Motion::Continue;
  pause_after_event.reset();
  count_pc = probe_pc;
  target.reset();
}

Status Timeline::Impl::reach_base_once(const Base& b, std::optional<uint64_t> probe_pc) {
  if (b.k >= checkpoints)
    return Error::msg("no checkpoint " + std::to_string(b.k) + " (the recording has " + std::to_string(checkpoints) + ")");
  const uint64_t events = reader.checkpoints()[b.k].segment_events;
  if (b.e > events)
    return Error::msg(where(b) + " is not in history: segment " + std::to_string(b.k) + " has " +
                      std::to_string(events) + " events");
  if (!b.after_event && b.n == 0) return Error::msg("moment counts start at 1 (n = 0 given)");
  configure_replay_run(probe_pc);
  if (!b.after_event) target = Moment{b.k, b.e, b.pc, b.n};
  // A user's breakpoint on the target's pc is counted by the target's
  // counter stub, not by an int3 there (which would keep the stub out).
  struct CountedTarget {
    Impl& t;
    ~CountedTarget() { t.counted_bps.clear(); }
  } counted_target{*this};
  if (target && active.breakpoints.count(target->pc) && counting_allowed()) {
    active.breakpoints.erase(target->pc);
    counted_bps = {target->pc};
  }
  if (!moments) moments = std::make_unique<MomentSnapshots>(options.max_moment_snapshots);
  // A kept copy before the target that knows the arrivals at its pc (and
  // at the probe's) up to its own moment.
  MomentSnapshot* near = nullptr;
  if (target && moment_adoptable(*target)) near = moments->nearest_counting(*target, probe_pc);
  if (near) {
    if (near->moment.pc != b.pc)
      SLSDBG_DEBUG("timeline", "reaching %s from the copy at %s (another pc)", target->to_string().c_str(),
                   near->moment.to_string().c_str());
    Status st = fresh_at(*near);
    if (!st.ok()) {
      SLSDBG_DEBUG("timeline", "copy at %s unusable: %s", near->moment.to_string().c_str(), st.error().message.c_str());
      near = nullptr;
    }
  }
  if (!near) TRY(fresh(b.k));
  if (b.after_event) {
    if (b.e == 0) return ok_status();
    pause_after_event = b.e;
    DriveResult d = TRY(drive(false));
    pause_after_event.reset();
    if (d.halt != Halt::Paused || why != PauseWhy::EventDone)
      return Error::msg(where(b) + " was not reached (the run ended first)");
    return ok_status();
  }
  TRY(drive_to_target(b));
  TRY(set_target_probe(std::nullopt));
  if (counted_bps.empty()) return ok_status();
  // Its int3 back for what follows, counting on from the stub's count.
  counted_bps.clear();
  active.breakpoints.insert(b.pc);
  return insert_breakpoint_bytes();
}

Status Timeline::Impl::reach_once(const Path& p, std::optional<uint64_t> probe_pc) {
  // A moment + s single steps: from the copy kept nearest before (a few
  // hundred steps at most when a trace passed there), else the moment itself.
  const bool steps_from_moment = !p.base.after_event && p.legs.size() == 1 && p.legs[0].motion == Motion::Step;
  const Moment base_moment{p.base.k, p.base.e, p.base.pc, p.base.n};
  uint64_t done = 0;
  MomentSnapshot* near = nullptr;
  if (steps_from_moment && !probe_pc && moments && moment_adoptable(base_moment))
    near = moments->nearest_steps(base_moment, p.legs[0].count);
  if (near) {
    configure_replay_run(std::nullopt);
    Status st = fresh_at(*near);
    if (st.ok()) done = near->steps;
    else SLSDBG_DEBUG("timeline", "step copy unusable: %s", st.error().message.c_str());
  }
  if (done == 0) TRY(reach_base(p.base, probe_pc));
  for (const Leg& leg : p.legs) {
    TRY(set_traps(leg.traps));
    for (uint64_t i = &leg == p.legs.data() ? done : 0; i < leg.count; i++) {
      if (steps_from_moment && i > 0 && i % kStepCopyEvery == 0) keep_moment(base_moment, i);
      TimelineStop st = TRY(forward(leg.motion));
      if (st.cause == StopCause::Diverged || st.cause == StopCause::Interrupted)
        return Error::msg("a recorded path did not replay the same way (" + where(p.base) + ", leg " +
                          std::to_string(&leg - p.legs.data()) + " move " + std::to_string(i) + ": " +
                          (st.divergence ? st.divergence->describe() : "interrupted") + ")");
    }
  }
  return set_traps(user);
}

Result<TimelineStop> Timeline::Impl::forward(Motion m) {
  TimelineStop st;
  if (at_exit) {
    st.cause = StopCause::Exited;
    st.pc = pc_now();
    st.exit_status = exit_status;
    st.signo = exit_signo;
    return st;
  }
  if (at_end) {
    st.cause = StopCause::HistoryEnd;
    st.pc = pc_now();
    return st;
  }
  motion = m;
  stop_at_user = true;
  collect = false;
  pause_signals = true;
  pause_after_event.reset();
  if (m == Motion::Continue) skip_forward = write_filter(active);
  if (skip_forward) segments_replayed++;
  Result<DriveResult> dr = drive(true);
  skip_forward.reset();
  motion = Motion::Continue;
  DriveResult d = TRY(std::move(dr));
  st.pc = pc_now();
  switch (d.halt) {
    case Halt::Paused:
      switch (why) {
        case PauseWhy::Breakpoint: st.cause = StopCause::Breakpoint; break;
        case PauseWhy::Watchpoint:
          st.cause = StopCause::Watchpoint;
          st.watch_addr = why_watch.addr;
          st.watch_kind = why_watch.kind;
          break;
        case PauseWhy::Signal:
          st.cause = StopCause::Signal;
          st.signo = why_signo;
          break;
        case PauseWhy::Exit:
          at_exit = true;
          st.cause = StopCause::Exited;
          st.exit_status = exit_status;
          st.signo = exit_signo;
          break;
        case PauseWhy::Interrupted: st.cause = StopCause::Interrupted; break;
        case PauseWhy::Exec: st.cause = StopCause::Exec; break;
        default: st.cause = StopCause::Step; break;
      }
      break;
    case Halt::HistoryEnd:
      at_end = true;
      st.cause = StopCause::HistoryEnd;
      break;
    case Halt::Killed:
      st.cause = StopCause::Exited;
      st.signo = d.signo;
      st.pc = 0;
      break;
    case Halt::Diverged:
      st.cause = StopCause::Diverged;
      st.divergence = d.divergence;
      break;
    case Halt::SegmentEnd: st.cause = StopCause::Step; break;
  }
  return st;
}

Result<Moment> Timeline::Impl::resolve() {
  known_end();
  if (known) return *known;
  if (at_end) return Error::msg("the end of a recording without a logged exit has no moment");
  const uint64_t pc = pc_now();
  const Path p = path;
  const bool exit_here = at_exit;
  {
    const CountingOff guard(*this, at_faulting_stop());
    if (std::optional<Moment> counted = TRY(resolve_counted(p, pc))) {
      known = *counted;
      path = Path{Base::at(*counted), {}};
      return *counted;
    }
    TRY(reach(p, pc));
  }
  TRY(fold_counter());
  const Moment m{segment, cursor, pc, std::max<uint64_t>(count_value, 1)};
  TRY(set_count_probe(std::nullopt));
  if (pc_now() != pc) return Error::msg("internal: re-running the path to " + m.to_string() + " ended elsewhere");
  at_exit = exit_here;
  known = m;
  path = Path{Base::at(m), {}};
  return m;
}

Result<TimelineStop> Timeline::Impl::to_checkpoint(uint64_t k) {
  if (k >= checkpoints)
    return Error::msg("no checkpoint " + std::to_string(k) + " (the recording has " + std::to_string(checkpoints) + ")");
  active = user;
  count_pc.reset();
  target.reset();
  TRY(fresh(k));
  TimelineStop st;
  st.cause = StopCause::Step;
  st.pc = pc_now();
  path = Path{Base::after(k, 0), {}};
  known = Moment{k, 0, st.pc, 1};
  trace_base.reset();
  return st;
}

Result<TimelineStop> Timeline::Impl::interrupted_back() {
  // The scan pauses only at events and checkpoints: "right after event
  // `cursor` of `segment`" is exact there. Going back to where the move
  // started would cost a replay up to it, so stay where the scan reached.
  collect = false;
  target.reset();
  stop_at_user = false;
  path = Path{Base::after(segment, cursor), {}};
  known.reset();
  at_exit = false;
  at_end = false;
  trace_base.reset();
  TRY(set_traps(user));
  TimelineStop st;
  st.cause = StopCause::Interrupted;
  st.pc = pc_now();
  TRY(leave_sysbuf_stub(st));
  return st;
}

void Timeline::Impl::known_end() {
  // A recording cut short ends at its last checkpoint's start, an exact moment.
  if (at_end && !known && cursor == 0 && segment + 1 == checkpoints) {
    known = Moment{segment, 0, pc_now(), 1};
    path = Path{Base::at(*known), {}};
  }
}

void Timeline::Impl::save_place() { saved = Place{path, known, at_exit, at_end, exit_signo, last}; }

void Timeline::Impl::recover() {
  trace_base.reset();
  interruptible = false;
  if (std::optional<Place> p = std::exchange(saved, std::nullopt)) {
    if (reach(p->path, std::nullopt).ok()) {
      path = p->path;
      known = p->known;
      at_exit = p->at_exit;
      at_end = p->at_end;
      exit_signo = p->exit_signo;
      last = p->last;
      companions_out();
      return;
    }
  }
  auto st = to_checkpoint(0);
  if (st.ok()) last = *st;
  companions_out();
}

// Runs segments first..last from checkpoint `first`'s start in one go (up to
// `until` when given), recording the stops a forward Continue would make.
void Timeline::Impl::configure_scan(const TrapSet& traps, std::optional<Moment> until) {
  active = traps;
  count_pc.reset();
  target = until;
  stop_at_user = true;
  collect = true;
  pause_signals = true;
  motion = Motion::Continue;
  pause_after_event.reset();
}

Result<std::vector<Hit>> Timeline::Impl::scan_once(uint64_t first, uint64_t last, std::optional<Moment> until) {
  configure_scan(user, until);
  Status st = fresh(first, SnapshotCache::Use::IfPresent);
  hits.clear();
  ordinal = 0;
  if (!st.ok()) {
    collect = false;
    return st.take_error();
  }
  if (why == PauseWhy::Target) {
    collect = false;
    return hits;
  }
  if (active.breakpoints.count(pc_now())) collect_landing_hit(pc_now());
  flow_limit = last;
  Result<DriveResult> dr = drive(true);
  flow_limit = UINT64_MAX;
  collect = false;
  DriveResult d = TRY(std::move(dr));
  if (d.halt == Halt::Diverged) return Error::msg(d.divergence ? d.divergence->describe() : "replay diverged");
  if (d.halt == Halt::Paused && why == PauseWhy::TargetMissed)
    return Error::msg("internal: the current moment was not found again in segment " + std::to_string(last));
  return hits;
}

std::optional<WriteFilter> Timeline::Impl::write_filter(const TrapSet& traps) const {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  bool reads = false;
  for (const Watch& w : traps.watches) {
    ranges.push_back({w.addr, w.len});
    reads |= w.kind != WatchKind::Write;
  }
  return WriteFilter::make(reader, std::move(ranges), {traps.breakpoints.begin(), traps.breakpoints.end()}, reads);
}

Result<TimelineStop> Timeline::Impl::land_on_hit(const Path& p, const Hit& hit) {
  TRY(reach(p, std::nullopt));
  // Elsewhere, GDB would see a trap at no breakpoint of its own and ask
  // for reverse-continue again, from there, forever.
  if (pc_now() != hit.pc)
    return Error::msg("internal: reverse-continue's stop at " + hex_addr(hit.pc) + " was not reached again (at " +
                      hex_addr(pc_now()) + ")");
  path = p;
  known.reset();
  trace_base.reset();
  TimelineStop st;
  if (hit.why == PauseWhy::Breakpoint) {
    if (hit.moment) {
      known = hit.moment;
      path = Path{Base::at(*hit.moment), {}};
    }
    st.cause = StopCause::Breakpoint;
    st.pc = pc_now();
    return st;
  }
  // A watchpoint: GDB wants the state before the accessing instruction.
  st = TRY(reverse_step());
  st.cause = StopCause::Watchpoint;
  st.watch_addr = hit.watch.addr;
  st.watch_kind = hit.watch.kind;
  return st;
}

Result<TimelineStop> Timeline::Impl::land_on_scan_hit(uint64_t first, const Hit& hit) {
  Path p{Base::after(first, 0), {}};
  if (!hit.landing) p.legs.push_back(Leg{Motion::Continue, hit.ordinal + 1, user});
  return land_on_hit(p, hit);
}

Result<TimelineStop> Timeline::Impl::reverse_continue() {
  // From a signal's stop the current instruction may be the faulting one,
  // the scan's target: no counter stub on it.
  const CountingOff guard(*this, at_faulting_stop());
  std::optional<Moment> c;
  if (!at_end) c = TRY(resolve());
  // The breakpoint's arrivals in this window are known (companion counts):
  // its last one is the answer, no scan.
  if (std::optional<Moment> m = c && !at_faulting_stop() ? last_hit_by_companions(*c) : std::nullopt) {
    SLSDBG_DEBUG("timeline", "reverse-continue: last hit %s by the companion count", m->to_string().c_str());
    TRY(reach_base(Base::at(*m), std::nullopt));
    TRY(set_traps(user));
    path = Path{Base::at(*m), {}};
    known = *m;
    trace_base.reset();
    TimelineStop st;
    st.cause = StopCause::Breakpoint;
    st.pc = pc_now();
    return st;
  }
  const uint64_t from = segment;
  const uint64_t floor = exec_floor(from);  // segments before it run another program
  if (c) {
    // A failure there leaves the scans below as they were before it.
    Result<std::optional<TimelineStop>> tail = reverse_continue_in_tail(*c);
    if (!tail.ok())
      SLSDBG_INFO("timeline", "reverse-continue: the window's tail was not scanned (%s); scanning the segment",
                  tail.error().message.c_str());
    else if (*tail)
      return **tail;
  }
  // Batches of segments, doubling backwards: 1, 2, 4, ... (one restore each).
  // With only write watchpoints, segments that cannot write the watched
  // bytes are skipped, and a batch never spans one (write_filter.h).
  std::optional<WriteFilter> filter = write_filter(user);
  auto needed = [&](uint64_t k) { return k == from || !filter || filter->must_replay(k, WriteFilter::Use::Reverse); };
  uint64_t hi = from;
  for (uint64_t width = 1;; width *= 2) {
    uint64_t skipped = 0;
    while (hi > floor && !needed(hi)) {
      hi--;
      skipped++;
    }
    segments_skipped += skipped;
    if (!needed(hi)) {  // the floor's segment cannot have written either
      segments_skipped++;
      break;
    }
    if (skipped)
      SLSDBG_DEBUG("timeline", "reverse-continue: segments %llu..%llu skipped (no write to the watched bytes)",
                   (unsigned long long)hi + 1, (unsigned long long)(hi + skipped));
    uint64_t lo = hi;
    while (lo > floor && hi - lo + 1 < width && needed(lo - 1)) lo--;
    if (options.progress) options.progress("reverse-continue: segments scanned", from - hi, from + 1);
    if (options.interrupted && options.interrupted()) return interrupted_back();
    // Polled at every event and checkpoint of the scan: the user is left
    // where the scan reached (a half-scanned batch cannot tell the last hit).
    interruptible = true;
    const std::optional<Moment> until = hi == from ? c : std::nullopt;
    // The next older batch, as wide, counted on another CPU meanwhile
    // (timeline_scan_ahead.cc); its answer counts only if this one has no hit.
    // Never the image's first segment: ld.so and libc's start keep CPUID's
    // leaves in memory, whose APIC id differs there (the arrival would fail).
    // Near the floor the rest is split in halves, so neither CPU scans the
    // last wide batch alone.
    ScanAheadPtr ahead;
    if (!filter && scan_ahead_cpu() >= 0) {
      if (hi > floor && hi - floor < 2 * width) lo = hi - (hi - floor + 1) / 2 + 1;
      if (lo > floor + 1) ahead = scan_ahead(lo - std::min(width, lo - floor - 1), lo - 1);
    }
    // After a batch with no hit: the ahead's answer, if it has one.
    enum class Older { Hit, None, Unknown };
    std::optional<Moment> older_hit;
    auto older = [&]() -> Older {
      if (!ahead) return Older::Unknown;
      const auto [alo, ahi] = scan_ahead_range(*ahead);
      Result<CountedScan> a = scan_ahead_result(*ahead);
      ahead.reset();
      if (!a.ok() || !a->usable) {
        SLSDBG_DEBUG("timeline", "reverse-continue: segments %llu..%llu scanned here (the other CPU's count: %s)",
                     (unsigned long long)alo, (unsigned long long)ahi,
                     a.ok() ? "not usable" : a.error().message.c_str());
        return Older::Unknown;
      }
      segments_replayed += ahi - alo + 1;
      SLSDBG_DEBUG("timeline", "reverse-continue: segments %llu..%llu counted on the other CPU: last hit %s",
                   (unsigned long long)alo, (unsigned long long)ahi, a->last ? a->last->to_string().c_str() : "none");
      lo = alo;
      older_hit = a->last;
      return a->last ? Older::Hit : Older::None;
    };
    // With watchpoints, earlier segments one at a time, each one's tail
    // first (timeline_watch_tail.cc); the first undecided one and those
    // below it in the batch are scanned whole.
    if (hi != from && !user.watches.empty() && !ahead) {
      uint64_t s = hi + 1;
      bool undecided = false;
      while (!undecided && s-- > lo) {
        Result<SegmentTail> tail = reverse_continue_in_segment_tail(s);
        if (!tail.ok())
          SLSDBG_INFO("timeline", "reverse-continue: segment %llu's tail was not scanned (%s); scanning the segment",
                      (unsigned long long)s, tail.error().message.c_str());
        if (tail.ok() && tail->landed) {
          interruptible = false;
          return *tail->landed;
        }
        undecided = !tail.ok() || !tail->none;
      }
      if (!undecided) {  // no stop in lo..hi
        interruptible = false;
        if (lo == floor) break;
        hi = lo - 1;
        continue;
      }
      hi = s;
    }
    // Breakpoints counted in the tracee: one run, then straight to the last hit's moment.
    Result<CountedScan> counted = scan_counted(lo, hi, until);
    if (options.interrupted && options.interrupted()) {
      interruptible = false;
      return interrupted_back();
    }
    auto land = [&](const Moment& m) -> Result<TimelineStop> {
      TRY(reach_base(Base::at(m), std::nullopt));
      TRY(set_traps(user));
      path = Path{Base::at(m), {}};
      known = m;
      trace_base.reset();
      TimelineStop st;
      st.cause = StopCause::Breakpoint;
      st.pc = pc_now();
      return st;
    };
    if (counted.ok() && counted->usable) {
      interruptible = false;
      segments_replayed += hi - lo + 1;
      SLSDBG_DEBUG("timeline", "reverse-continue: segments %llu..%llu counted: last hit %s", (unsigned long long)lo,
                   (unsigned long long)hi, counted->last ? counted->last->to_string().c_str() : "none");
      if (counted->last) return land(*counted->last);
      const Older o = older();
      if (o == Older::Hit) return land(*older_hit);
      if (o == Older::Unknown && options.interrupted && options.interrupted()) return interrupted_back();
      if (lo == floor) break;
      hi = lo - 1;
      continue;
    }
    if (!counted.ok())
      SLSDBG_INFO("timeline", "reverse-continue: scanning with traps (counted scan failed: %s)",
                  counted.error().message.c_str());
    Result<std::vector<Hit>> scanned = scan(lo, hi, until);
    interruptible = false;
    std::vector<Hit> found = TRY(std::move(scanned));
    segments_replayed += hi - lo + 1;
    if (options.interrupted && options.interrupted()) return interrupted_back();
    SLSDBG_DEBUG("timeline", "reverse-continue: segments %llu..%llu: %zu stops, ended in segment %llu (why %d)", (unsigned long long)lo, (unsigned long long)hi, found.size(), (unsigned long long)segment, static_cast<int>(why));
    const Hit* best = latest_stop(found);
    if (!best) {
      const Older o = older();
      if (o == Older::Hit) return land(*older_hit);
      if (o == Older::Unknown && options.interrupted && options.interrupted()) return interrupted_back();
      if (lo == floor) break;
      hi = lo - 1;
      continue;
    }
    return land_on_scan_hit(lo, *best);
  }
  if (floor > 0) return before_exec(floor);
  TimelineStop st = TRY(to_checkpoint(0));
  st.cause = StopCause::HistoryBegin;
  return st;
}

}  // namespace slsdbg::replay
