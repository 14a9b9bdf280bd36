// The client's moves over a threaded recording: goto a checkpoint or
// moment, forward, backward (a collection per segment), last-write.
#include "engine/replay/threaded_timeline_impl.h"

namespace slsdbg::replay {

bool ThreadedTimeline::Impl::same_regs(const user_regs_struct& a, const user_regs_struct& b) {
  return a.rip == b.rip && a.rsp == b.rsp && a.rbp == b.rbp && a.rax == b.rax && a.rbx == b.rbx &&
         a.rdx == b.rdx && a.rsi == b.rsi && a.rdi == b.rdi && a.r8 == b.r8 && a.r9 == b.r9 && a.r10 == b.r10 &&
         a.r12 == b.r12 && a.r13 == b.r13 && a.r14 == b.r14 && a.r15 == b.r15;
}

void ThreadedTimeline::Impl::end_measure() {
  measuring = false;
  step_tid.reset();
  target_reached = true;
  command = Command::Abort;  // unwind the run at its next hook
}

Result<std::vector<ThreadedTimeline::Impl::Hit>> ThreadedTimeline::Impl::collect(uint64_t seg, const Position& t) {
  target = t;
  TRY(start_run(seg, Mode::Collect));
  const bool by_counters = use_counters;
  TRY(drive());
  if (outcome && outcome->ok() && (*outcome)->head_missed) {
    heads_off = true;
    Result<std::vector<Hit>> again = collect(seg, t);
    heads_off = false;
    return again;
  }
  if (paused) return Error::msg("internal: a collecting replay paused");
  TRY(check_outcome(/*aborted_ok=*/true));
  // A window's stubs went at its start: its hits are all by trap, as they
  // are when the stubs were dropped at the start (not every pc had one,
  // outside a mixed collection). Else the stubs' last arrival is ordered
  // against the traps' last hit by its window.
  if (!by_counters || window_from || (!mixed_counts && !all_counted)) return hits;
  std::optional<ThreadCounters::Arrival> left_out;
  if (t.n > 0) left_out = ThreadCounters::Arrival{t.tid, t.pc, t.n};
  size_t window = 0;
  Result<std::optional<ThreadCounters::Arrival>> last = counters.last_arrival(left_out, &window, &user_bps);
  if (!last.ok()) {
    SLSDBG_DEBUG("replay", "segment %llu: %s; collecting again with int3s", (unsigned long long)seg,
                 last.error().message.c_str());
    counters_refused = true;
    Result<std::vector<Hit>> again = collect(seg, t);
    counters_refused = false;
    return again;
  }
  if (*last && (hits.empty() || window >= hits.back().windows_before))
    hits.push_back(Hit{Position{seg, false, (*last)->thread, (*last)->pc, (*last)->n, {}}, {}, false, (*last)->thread});
  return hits;
}

Status ThreadedTimeline::Impl::seek(Position t) {
  target = std::move(t);
  TRY(start_run(target.k, Mode::Seek));
  TRY(drive());
  if (!paused) {
    TRY(check_outcome(false));
    return Error::msg("position not reached in segment " + std::to_string(target.k));
  }
  return ok_status();
}

Status ThreadedTimeline::Impl::check_outcome(bool aborted_ok) {
  if (!outcome) return Error::msg("internal: the replay ended without an outcome");
  if (!outcome->ok()) {
    if (aborted_ok && target_reached) return ok_status();
    return outcome->error();
  }
  if ((*outcome)->end == SegmentEnd::Diverged && (*outcome)->divergence)
    return Error::msg("replay diverged in segment " + std::to_string(k) + ": expected " +
                      (*outcome)->divergence->expected + ", got " + (*outcome)->divergence->actual);
  return ok_status();
}

Result<ThreadedStop> ThreadedTimeline::Impl::goto_checkpoint(uint64_t seg) {
  if (seg >= checkpoints)
    return Error::msg("no checkpoint " + std::to_string(seg) + " (the recording has " + std::to_string(checkpoints) + ")");
  stop_at_start = true;
  TRY(start_run(seg, Mode::Live));
  TRY(drive());
  stop_at_start = false;
  if (!paused) {
    TRY(check_outcome(false));
    return Error::msg("checkpoint " + std::to_string(seg) + " could not be restored");
  }
  return stop;
}

Result<ThreadedStop> ThreadedTimeline::Impl::goto_position(const Position& p) {
  if (p.k >= checkpoints)
    return Error::msg("no checkpoint " + std::to_string(p.k) + " (the recording has " + std::to_string(checkpoints) + ")");
  if (p.end && p.k + 1 < checkpoints) return goto_checkpoint(p.k + 1);
  if (p.end) {  // the end of history: the last segment run through, nothing set to stop it
    std::set<uint64_t> bps = std::exchange(user_bps, {});
    std::set<WatchRange> watches = std::exchange(user_watches, {});
    const bool catches = std::exchange(catching, false);
    Result<ThreadedStop> there = goto_checkpoint(p.k);
    if (there.ok()) there = forward(Motion::Continue, there->thread);
    user_bps = std::move(bps);
    user_watches = std::move(watches);
    catching = catches;
    return there;
  }
  if (p.is_start() && p.steps.empty()) return goto_checkpoint(p.k);
  const Position from = cur;
  goto_seek = true;
  Status st = seek(p);
  goto_seek = false;
  if (st.ok()) return stop;
  Error e = st.take_error().context("moment " + p.to_string());
  const bool back = from.is_start() && from.steps.empty() ? goto_checkpoint(from.k).ok() : seek(from).ok();
  if (!back) (void)goto_checkpoint(from.k);
  return e;
}

Result<ThreadedStop> ThreadedTimeline::Impl::forward(Motion motion, Tid thread) {
  if (!co || co->finished() || !paused) return Error::msg("the replay is not stopped anywhere (go to a checkpoint first)");
  TRY(sync_breakpoints(motion == Motion::Step ? std::optional<Tid>(thread) : std::nullopt));
  TRY(sync_watches());
  const Position from = cur;
  mode = Mode::Live;  // a seek ends where it paused; from there the client drives
  continuing = motion == Motion::Continue;
  if (motion == Motion::Step) step_tid = thread;
  for (;;) {
    TRY(drive());
    if (paused && unnamed_hit) return name_watch_stop(from, motion, thread);
    if (paused) return stop;
    // The segment is over.
    const uint64_t seg = k;
    if (!outcome->ok()) {
      Error e = outcome->error();
      co.reset();
      return e;
    }
    SegmentOutcome out = **outcome;
    if (out.end == SegmentEnd::Diverged) {
      Divergence d = out.divergence.value_or(Divergence{});
      ThreadedStop back = TRY(goto_checkpoint(seg));
      back.stop.cause = StopCause::Diverged;
      back.stop.divergence = d;
      stop = back;
      return back;
    }
    if (seg + 1 >= checkpoints) return Error::msg("internal: segment " + std::to_string(seg) + " ended past history");
    if (is_exec_checkpoint(reader, seg + 1)) {
      // A new image: the client stops there and loads its symbols.
      ThreadedStop at = TRY(goto_checkpoint(seg + 1));
      at.stop.cause = StopCause::Exec;
      stop = at;
      return at;
    }
    if (interrupt_requested()) {
      ThreadedStop at = TRY(goto_checkpoint(seg + 1));
      at.stop.cause = StopCause::Interrupted;
      stop = at;
      return at;
    }
    // The next checkpoint is restored: the same state, all threads.
    std::optional<Tid> stepping = step_tid;
    TRY(start_run(seg + 1, Mode::Live));
    step_tid = stepping;
  }
}

Result<ThreadedStop> ThreadedTimeline::Impl::name_watch_stop(const Position& from, Motion motion, Tid thread) {
  const UnnamedHit h = *unnamed_hit;
  const ThreadedStop shown = stop;
  also_counted = {h.pc};
  Status there = seek(from);
  also_counted.clear();
  TRY(std::move(there));
  mode = Mode::Live;
  continuing = motion == Motion::Continue;
  if (motion == Motion::Step) step_tid = thread;
  naming = true;
  Status ran = drive();
  naming = false;
  TRY(std::move(ran));
  if (!paused || stop.stop.cause != StopCause::Watchpoint || stop.thread != h.thread || cur.pc != h.pc)
    return Error::msg("internal: the watched access at " + hex_of(h.pc) + " was not met again from " + from.to_string());
  SLSDBG_DEBUG("replay", "a watch stop named %s", cur.to_string().c_str());
  stop = shown;
  return stop;
}

Result<ThreadedStop> ThreadedTimeline::Impl::backward_step() {
  if (!co || co->finished() || !paused) return Error::msg("the replay is not stopped anywhere (go to a checkpoint first)");
  // A search that fails after running other replays is undone by
  // ThreadedTimeline::resume, as for any move.
  const Position found = TRY(before(cur));
  TRY(seek(found));
  stop.stop.cause = StopCause::Step;
  stop.syscall_no.reset();
  stop.fork_child.reset();
  return stop;
}

Result<ThreadedPosition> ThreadedTimeline::Impl::before(Position back) {
  if (!back.steps.empty()) {
    back.steps.pop_back();
    return back;
  }
  if (back.n > 0) return position_before(back);
  if (back.is_start() && back.k > 0) return position_before_checkpoint(back.k);
  if (back.resume_m > 0 && !back.end) return position_before_resume(back.k, back.tid, back.resume_m);
  if (back.event && cur.same_anchor(back)) {
    // At a caught call's entry or return: the call's instruction, not run
    // yet. First as the thread's N-th arrival at the call's site (one
    // replay of the segment with an int3 there: no single steps, however
    // long the thread ran since its last resume); else single steps from
    // that resume. A call made through the syscall buffer's stub: the
    // patched site in the program, before it entered the stub, where GDB
    // has symbols (the stub's own instructions are not the program's).
    Result<std::optional<Position>> arrival = std::optional<Position>();
    if (std::optional<uint64_t> site = call_site_of(back.tid)) arrival = call_site_arrival(back, *site);
    if (arrival.ok() && *arrival) return **arrival;
    SLSDBG_DEBUG("replay", "reverse step from a caught call by its site's arrivals: %s",
                 arrival.ok() ? "none counted" : arrival.error().message.c_str());
    return position_before_resume(back.k, back.tid, resumes[back.tid.value] + 1, true);
  }
  if (back.event)
    return Error::unsupported("a reverse step from this caught system call is not supported yet with threads "
                              "(reverse-continue is)");
  if (back.end && stop.stop.cause == StopCause::Exited && stop.stop.signo == 0 && stop.thread.value != 0 &&
      cur.same_anchor(back)) {
    // The program's exit: the exiting thread's exit call, not run yet;
    // or, when the exit checkpoint stands there (nothing ran since it),
    // the instruction that led to it.
    const Tid t = stop.thread;
    if (resumes[t.value] == 0 && back.k > 0 && running_thread_of(back.k) == t) return position_before_checkpoint(back.k);
    return position_before_resume(back.k, t, resumes[t.value] + 1, true);
  }
  if (back.end)
    return Error::unsupported("a reverse step from this end of a threaded recording is not supported yet "
                              "(reverse-continue is, and reverse-stepi from its exit, a breakpoint or a caught call)");
  return Error::unsupported(
      "a reverse step from here (checkpoint 0's start) is not possible: it is the start of the recording");
}

std::optional<WriteFilter> ThreadedTimeline::Impl::write_filter() const {
  if (user_watches.empty()) return std::nullopt;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  bool reads = false;
  for (const WatchRange& w : user_watches) {
    ranges.emplace_back(w.addr, w.len);
    if (w.kind != WatchKind::Write) reads = true;
  }
  return WriteFilter::make(reader, std::move(ranges), {user_bps.begin(), user_bps.end()}, reads);
}

Result<ThreadedStop> ThreadedTimeline::Impl::backward() {
  if (!co || co->finished() || !paused) return Error::msg("the replay is not stopped anywhere (go to a checkpoint first)");
  const Position from = cur;
  // Stopped right after a watched access (a forward watch stop, no step
  // since): that access is the first one behind; land before it, as
  // GDB's `record full` and rr do. Before, the search began before it
  // and found the access before that one.
  if (from.watch && from.steps.empty() && user_watches.count(*from.watch))
    return land_on(Hit{from, from.watch, false, from.tid});
  std::optional<WriteFilter> filter = write_filter();
  for (uint64_t seg = from.k + 1; seg-- > 0;) {
    if (seg < from.k && filter && !filter->must_replay(seg, WriteFilter::Use::Reverse)) {
      skipped++;
      continue;
    }
    if (seg < from.k && interrupt_requested()) {
      // Searched back to segment seg + 1's start, found nothing: stay there.
      ThreadedStop at = TRY(goto_checkpoint(seg + 1));
      at.stop.cause = StopCause::Interrupted;
      stop = at;
      return at;
    }
    if (seg < from.k && is_exec_checkpoint(reader, seg + 1)) return before_exec(seg + 1);
    Position t = seg == from.k ? from : Position{seg, true};
    if (t.is_start() && t.steps.empty()) continue;
    const TailResult tail = TRY(backward_in_tail(t));
    if (tail.landed) return *tail.landed;
    if (tail.nothing_in_segment) continue;
    std::vector<Hit> found = TRY(collect(seg, t));
    if (!found.empty()) return land_on(found.back());
  }
  ThreadedStop s = TRY(goto_checkpoint(0));
  s.stop.cause = StopCause::HistoryBegin;
  stop = s;
  return s;
}

Result<ThreadedStop> ThreadedTimeline::Impl::before_exec(uint64_t k) {
  const ExecveEvent execve = TRY(execve_event_before(reader, k));
  Position p{k - 1, false, execve.tid};
  p.event = execve.index;
  p.entry = true;
  TRY(seek(p));
  stop.stop.cause = StopCause::Exec;
  stop.syscall_no.reset();
  stop.fork_child.reset();
  return stop;
}

Result<std::optional<ThreadedLastWrite>> ThreadedTimeline::Impl::last_write(uint64_t addr, uint64_t len,
                                                    const std::function<Status(const ThreadedLastWrite&)>& at) {
  if (!co || co->finished() || !paused) return Error::msg("the replay is not stopped anywhere (go to a checkpoint first)");
  std::set<WatchRange> pieces;
  for (uint64_t a = addr, end = addr + len; a < end;) {
    uint64_t n = 8;
    while (n > 1 && (a % n != 0 || a + n > end)) n /= 2;
    pieces.insert(WatchRange{WatchKind::Write, a, n});
    a += n;
  }
  if (len == 0 || pieces.size() > kMaxThreadWatches)
    return Error::msg("with threads last-write watches at most " + std::to_string(kMaxThreadWatches) +
                      " aligned pieces of up to 8 bytes (debug registers): ask for fewer bytes");
  const Position from = cur;
  std::set<uint64_t> bps = std::exchange(user_bps, {});
  std::set<WatchRange> watches = std::exchange(user_watches, pieces);
  const bool catches = std::exchange(catching, false);
  const bool forks = std::exchange(fork_stops, false), vforks = std::exchange(vfork_stops, false);
  Result<ThreadedStop> found = backward();
  catching = catches;
  fork_stops = forks;
  vfork_stops = vforks;
  std::optional<ThreadedLastWrite> out;
  Status described = ok_status();
  if (found.ok() && found->stop.cause == StopCause::Watchpoint) {
    out = ThreadedLastWrite{cur.to_string(), cur.k, found->thread, found->stop.pc};
    described = at(*out);
  }
  user_bps = std::move(bps);
  user_watches = std::move(watches);
  Status back = ok_status();
  if (from.is_start() && from.steps.empty()) {
    if (auto at_start = goto_checkpoint(from.k); !at_start.ok()) back = at_start.take_error();
  } else {
    back = seek(from);
  }
  if (!found.ok()) return found.take_error();
  if (!described.ok()) return described.take_error();
  if (!back.ok()) return back.take_error().context("going back to " + from.to_string());
  return out;
}

}  // namespace slsdbg::replay
