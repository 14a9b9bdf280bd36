// Reverse step: the instruction executed just before the current moment C,
// found by single-stepping forward from the nearest exact point before C
// (its previous visit since the latest event, or that event's completion) and
// re-reached as "that point + s steps". Across an event it is the event's own
// instruction (the syscall or rdtsc), found with a counting probe; at a
// segment's start, the last instruction of the previous segment.
#include <cstdio>
#include <cstdlib>

#include "engine/replay/timeline_impl.h"

namespace slsdbg::replay {

namespace {
// A long trace polls the user's interrupt this often (a step costs ~30-60 us).
constexpr uint64_t kInterruptPollSteps = 1024;

TimelineStop step_stop(uint64_t pc) {
  TimelineStop st;
  st.cause = StopCause::Step;
  st.pc = pc;
  return st;
}
}  // namespace

// Single-steps from the current pause until `done` says stop; returns the pcs
// of every position passed (the first is the start).
Result<std::vector<uint64_t>> Timeline::Impl::trace_steps(const std::function<Result<bool>(DriveResult&)>& done,
                                                          std::optional<Moment> from) {
  Impl& t = *this;
  std::vector<uint64_t> pcs{t.pc_now()};
  t.motion = Motion::Step;
  t.stop_at_user = false;
  t.pause_signals = false;
  t.collect = false;
  for (;;) {
    // No distance limit; a long one can be interrupted (the move is then
    // undone: recover() returns to where it started).
    if (pcs.size() % kInterruptPollSteps == 0 && t.options.interrupted && t.options.interrupted()) {
      t.motion = Motion::Continue;
      return Error::msg("reverse step interrupted after " + std::to_string(pcs.size()) + " instructions of tracing");
    }
    Result<DriveResult> dr = t.drive(false);
    if (!dr.ok()) {
      t.motion = Motion::Continue;
      return dr.take_error();
    }
    if (dr->halt == Halt::Paused) {
      pcs.push_back(t.pc_now());
      if (from && (pcs.size() - 1) % kStepCopyEvery == 0) t.keep_moment(*from, pcs.size() - 1);
    }
    Result<bool> stop = done(*dr);
    if (!stop.ok() || *stop) {
      t.motion = Motion::Continue;
      if (!stop.ok()) return stop.take_error();
      return pcs;
    }
  }
}

// The position just before the instruction behind event e-1 (e >= 1) of
// segment k: a syscall or rdtsc by a counting probe, anything else by tracing.
Result<TimelineStop> Timeline::Impl::before_event(uint64_t k, uint64_t e) {
  Impl& t = *this;
  const store::Event ev = TRY(t.reader.segment_event(SegmentId(k), e - 1));
  if (ev.kind == store::EventKind::Syscall || ev.kind == store::EventKind::Rdtsc) {
    const uint64_t insn = ev.kind == store::EventKind::Syscall ? ev.pc - 2 : ev.pc;
    // Every run of that instruction is an event, so the debug-register
    // probe traps once; a counter stub's count would be lost when a forced
    // or exec checkpoint replaces the process right after the call.
    const CountingOff guard(t, true);
    TRY(t.reach_base(Base::after(k, e - 1), insn));
    t.pause_after_event = e;
    Result<DriveResult> dr = t.drive(false);
    t.pause_after_event.reset();
    DriveResult d = TRY(std::move(dr));
    uint64_t n = 0;
    if (d.halt == Halt::Paused && t.why == PauseWhy::EventDone) n = t.count_at_event;
    else if (d.halt == Halt::SegmentEnd) n = t.count_at_event;  // a forced checkpoint follows the syscall
    TRY(t.set_count_probe(std::nullopt));
    if (n == 0) return Error::msg("reverse step: the instruction of event " + std::to_string(e - 1) + " of segment " +
                                  std::to_string(k) + " was not found");
    const Moment m{k, e - 1, insn, n};
    TRY(t.reach_base(Base::at(m), std::nullopt));
    TRY(t.set_traps(t.user));
    t.path = Path{Base::at(m), {}};
    t.known = m;
    t.trace_base.reset();
    return step_stop(insn);
  }
  // A signal: the last position before its delivery.
  const Base b = Base::after(k, e - 1);
  TRY(t.reach_base(b, std::nullopt));
  std::vector<uint64_t> pcs = TRY(t.trace_steps([&](DriveResult&) -> Result<bool> { return t.cursor >= e; }));
  const uint64_t steps = pcs.size() >= 2 ? pcs.size() - 2 : 0;
  Path p{b, {}};
  if (steps) p.legs.push_back(Leg{Motion::Step, steps, t.user});
  TRY(t.reach(p, std::nullopt));
  t.path = p;
  t.known.reset();
  t.trace_base = b;
  return step_stop(t.pc_now());
}

// Positions right after event e are exact "first arrival" moments unless
// event e-1 is a signal (paused before its delivery).
bool Timeline::Impl::no_signal_before(const Base& b) const {
  if (b.e == 0) {
    const uint64_t events = reader.checkpoints()[b.k].segment_events;
    if (events == 0) return true;
    auto first = reader.segment_event(SegmentId(b.k), 0);
    return first.ok() && first->kind != store::EventKind::Signal;
  }
  auto ev = reader.segment_event(SegmentId(b.k), b.e - 1);
  return ev.ok() && ev->kind != store::EventKind::Signal;
}

Moment Timeline::Impl::moment_in_trace(size_t i) const {
  uint64_t n = 0;
  for (size_t j = 0; j <= i; j++)
    if (moment_trace[j] == moment_trace[i]) n++;
  return Moment{moment_trace_base->k, moment_trace_base->e, moment_trace[i], n};
}

Result<TimelineStop> Timeline::Impl::goto_trace_position(size_t i) {
  const Moment m = moment_in_trace(i);
  TRY(reach_base(Base::at(m), std::nullopt));
  TRY(set_traps(user));
  path = Path{Base::at(m), {}};
  known = m;
  moment_trace_index = i;
  trace_base.reset();
  return step_stop(m.pc);
}

Result<TimelineStop> Timeline::Impl::reverse_step() {
  known_end();
  if (at_end && !known) return Error::msg("reverse step from the end of a recording without a logged exit: not supported yet");
  // Repeated reverse steps inside a trace of exact moments: one goto each.
  if (moment_trace_base && known && moment_trace_index > 0 && moment_trace_index < moment_trace.size() &&
      *known == moment_in_trace(moment_trace_index))
    return goto_trace_position(moment_trace_index - 1);
  // A position named as a base + s single steps (the previous trace's start,
  // or forward steps from a known moment): the same base + s - 1 steps.
  if (path.legs.size() == 1 && path.legs[0].motion == Motion::Step && path.legs[0].traps == user) {
    Path p{path.base, {}};
    if (path.legs[0].count > 1) p.legs.push_back(Leg{Motion::Step, path.legs[0].count - 1, user});
    const Base keep = path.base;
    TRY(reach(p, std::nullopt));
    path = p;
    known.reset();
    if (p.legs.empty() && !keep.after_event) known = Moment{keep.k, keep.e, keep.pc, keep.n};
    trace_base = keep;
    return step_stop(pc_now());
  }
  const Moment c = TRY(resolve());
  const store::ProcessState cp = TRY(reader.process_state(CheckpointId(c.checkpoint)));
  const bool at_segment_start = c.event == 0 && c.n == 1 && !cp.threads.empty() && cp.threads[0].regs.rip == c.pc;
  if (at_segment_start) {
    if (c.checkpoint == 0) {
      TimelineStop st = step_stop(c.pc);
      st.cause = StopCause::HistoryBegin;
      return st;
    }
    if (reader.checkpoints()[c.checkpoint].reason == "exec") return before_exec(c.checkpoint);
    // The last instruction of the previous segment.
    const uint64_t prev = c.checkpoint - 1;
    const uint64_t events = reader.checkpoints()[prev].segment_events;
    const Base b = Base::after(prev, events > 0 && reader.segment_event(SegmentId(prev), events - 1)->kind ==
                                                      store::EventKind::ForcedCheckpoint
                                         ? events - 1
                                         : events);
    if (b.e < events) return before_event(prev, b.e);  // crossed by restore after that syscall
    TRY(reach_base(b, std::nullopt));
    bool by_restore = false;
    std::vector<uint64_t> pcs = TRY(trace_steps([&](DriveResult& d) -> Result<bool> {
      if (d.halt == Halt::SegmentEnd) {
        by_restore = d.boundary_by_restore;
        return true;
      }
      if (d.halt != Halt::Paused) return Error::msg("reverse step: the previous segment did not reach checkpoint " +
                                                    std::to_string(c.checkpoint));
      return false;
    }));
    // pcs.back() is checkpoint k's state itself (its breakpoint fires on the next step).
    if (pcs.size() < 2) return before_event(prev, events);
    return land_before_last(b, pcs);
  }
  std::optional<Moment> call = TRY(call_before(c));
  if (!call) call = TRY(previous_by_code(c));
  if (call) {
    TRY(reach_base(Base::at(*call), std::nullopt));
    TRY(set_traps(user));
    path = Path{Base::at(*call), {}};
    known = *call;
    trace_base.reset();
    return step_stop(call->pc);
  }
  if (std::optional<TimelineStop> st = TRY(entry_via_stub(c))) return *st;
  const Base b = c.n > 1 ? Base::at(Moment{c.checkpoint, c.event, c.pc, c.n - 1}) : Base::after(c.checkpoint, c.event);
  TRY(reach_base(b, std::nullopt));
  const uint64_t start_cursor = cursor;
  uint64_t arrivals = b.after_event ? (pc_now() == c.pc ? 1 : 0) : c.n - 1;
  std::vector<uint64_t> pcs{pc_now()};
  if (arrivals < c.n) {
    pcs = TRY(trace_steps([&](DriveResult& d) -> Result<bool> {
      if (d.halt != Halt::Paused || why != PauseWhy::Step || cursor != start_cursor)
        return Error::msg("reverse step: lost the way back to " + c.to_string());
      if (pc_now() == c.pc) arrivals++;
      return arrivals >= c.n;
    }, b.after_event ? std::nullopt : std::optional<Moment>(Moment{b.k, b.e, b.pc, b.n})));
  }
  if (pcs.size() == 1) {
    // C is the first instruction after event c.event: the event's own instruction is the previous one.
    if (c.event == 0) return Error::msg("internal: " + c.to_string() + " looks like the segment's start");
    return before_event(c.checkpoint, c.event);
  }
  return land_before_last(b, pcs);
}

// The instruction before the last of `pcs`, a trace of single steps from b:
// from the kept trace when its moments can be named, else by reaching b plus
// the steps again.
Result<TimelineStop> Timeline::Impl::land_before_last(const Base& b, const std::vector<uint64_t>& pcs) {
  if (b.after_event && no_signal_before(b)) {
    moment_trace_base = b;
    moment_trace = pcs;
    return goto_trace_position(pcs.size() - 2);
  }
  const uint64_t steps = pcs.size() - 2;
  Path p{b, {}};
  if (steps) p.legs.push_back(Leg{Motion::Step, steps, user});
  TRY(reach(p, std::nullopt));
  path = p;
  known.reset();
  if (steps == 0 && !b.after_event) known = Moment{b.k, b.e, b.pc, b.n};
  trace_base = b;
  return step_stop(pc_now());
}

}  // namespace slsdbg::replay
