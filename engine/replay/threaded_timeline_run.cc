// A threaded segment's run: its start from a checkpoint or snapshot, the coroutine
// that drives it, pauses for the client, and the end of history.
#include "engine/replay/threaded_timeline_impl.h"

namespace slsdbg::replay {

Status ThreadedTimeline::Impl::pause(ThreadedStop s) {
  if (command == Command::Abort) return Error::msg("replay aborted");
  TRY(stop_counting());
  TRY(arm_late_watches());
  step_tid.reset();
  stop = std::move(s);
  paused = true;
  co->yield();
  paused = false;
  if (command == Command::Abort) return Error::msg("replay aborted");
  return ok_status();
}

Status ThreadedTimeline::Impl::finish_collect() {
  target_reached = true;
  command = Command::Abort;  // unwind the run: the process is not needed any more
  return Error::msg("replay aborted");
}

Status ThreadedTimeline::Impl::abort_run() {
  if (co && !co->finished()) {
    command = Command::Abort;
    while (!co->finished()) TRY(co->enter());
  }
  co.reset();
  live.clear();
  inserted.clear();
  paused = false;
  command = Command::Go;
  return ok_status();
}

Status ThreadedTimeline::Impl::start_run(uint64_t seg, Mode m) {
  TRY(abort_run());
  k = seg;
  mode = m;
  outcome.reset();
  counts.clear();
  counted.clear();
  resumes.clear();
  after_trap.clear();
  measuring = false;
  measured = seen = 0;
  measured_in_program = kNone;
  last_m = 0;
  told_threads = false;
  pending.clear();
  executed = false;
  at_anchor = false;
  steps_done = 0;
  hits.clear();
  target_reached = false;
  step_tid.reset();
  wcounts.clear();
  watches_late = window_from.has_value() ||
                 ((m == Mode::Seek || m == Mode::Locate || m == Mode::Measure) && !target_watched() && !exact_watches);
  late_armed = false;
  wcounts_exact = !watches_late;
  window_open = false;
  collect_capped = false;
  unnamed_hit.reset();
  use_counters = counters_fit(m);
  target_stub_only = !use_counters && counts_target_only(m);
  counters = ThreadCounters{};  // the old process, and its stubs, are gone
  all_counted = false;
  mixed_counts = false;
  count_at_resume = 0;
  armed = watch_set();
  cur = Position{seg};
  runs++;
  co = std::make_unique<Coroutine>([this, seg] { outcome = replay_threaded_segment(reader, CheckpointId(seg), *this); });
  return ok_status();
}

Status ThreadedTimeline::Impl::drive() {
  const process::ProgramRun program_runs;  // a user's interrupt may cut its long waits (wait_cut.h)
  TRY(co->enter());
  return ok_status();
}

ThreadedStop ThreadedTimeline::Impl::plain_stop(Tid t, StopCause cause) {
  ThreadedStop s;
  s.stop.cause = cause;
  s.thread = t;
  for (SegmentThread& th : live)
    if (th.recorded == t)
      if (auto r = th.task->regs(); r.ok()) s.stop.pc = r->rip;
  return s;
}

Status ThreadedTimeline::Impl::at_syscall(const SegmentThread& th, size_t index, const store::Event& ev, bool entry) {
  if (command == Command::Abort) return Error::msg("replay aborted");
  if (mode == Mode::Locate || mode == Mode::Measure) return ok_status();
  Position p{k, false, th.recorded};
  p.event = index;
  p.entry = entry;
  bool catches = catching && (caught.empty() || caught.count(ev.syscall_no));
  ThreadedStop s = plain_stop(th.recorded, StopCause::Breakpoint);
  s.syscall_no = ev.syscall_no;
  s.syscall_entry = entry;
  if (!entry && (fork_stops || vfork_stops) && may_fork(ev)) {
    // clone3's flags are in its struct clone_args, still in the caller's frame.
    const ForkKind kind = fork_kind(ev, [&th](uint64_t addr) -> std::optional<uint64_t> {
      uint64_t word = 0;
      if (!th.task->read_memory(RemoteAddr(addr), {reinterpret_cast<uint8_t*>(&word), sizeof word}).ok())
        return std::nullopt;
      return word;
    });
    if ((kind == ForkKind::Fork && fork_stops) || (kind == ForkKind::VFork && vfork_stops)) {
      s.fork_child = static_cast<int32_t>(ev.result);
      s.vfork = kind == ForkKind::VFork;
      s.syscall_no.reset();
      catches = true;
    }
  }
  if (mode == Mode::Live) {
    if (!catches || !continuing) return ok_status();
    cur = p;
    return pause(std::move(s));
  }
  if (!at_anchor && p.same_anchor(target)) {
    cur = p;
    return anchor_reached(std::move(s));
  }
  if (mode == Mode::Collect && catches) return add_hit(Hit{p, {}, false, th.recorded});
  return ok_status();
}

Status ThreadedTimeline::Impl::threads_changed(const std::vector<SegmentThread>& threads) {
  live = threads;
  if (told_threads) return ok_status();
  told_threads = true;
  // The restore: breakpoints and watches in, then maybe the checkpoint's stop.
  if (mode == Mode::Locate && ways_wanted && any_task()) {
    ways_found = ways_wanted->later ? later_site(ways_wanted->pc) : ways_into(ways_wanted->pc, ways_wanted->at_rsp);
    if (ways_wanted->except)
      std::erase_if(ways_found, [this](const WayIn& w) { return w.count_at == *ways_wanted->except; });
    for (const WayIn& w : ways_found) also_counted.insert(w.count_at);
  }
  const std::set<uint64_t> want = wanted();
  std::set<uint64_t> by_stub;
  if ((use_counters || target_stub_only) && !want.empty() && any_task()) {
    std::vector<uint64_t> thread_pcs;
    for (const SegmentThread& t : live)
      if (Result<user_regs_struct> r = t.task->regs(); r.ok()) thread_pcs.push_back(r->rip);
    const std::set<uint64_t> stubbed = target_stub_only ? std::set<uint64_t>{target.pc} : want;
    const bool wide = wide_sites();
    const std::set<uint64_t> wide_bps = wide ? std::set<uint64_t>{} : wide_breakpoints(stubbed);
    // A stub of several instructions keeps clear of the next checkpoint's
    // pcs: the patched breakpoint that reaches it yields to a stub, and
    // the perf breakpoint standing in misses in a hot loop ("checkpoint N
    // not reached").
    std::map<uint64_t, uint64_t> moves;  // threads standing among a stub's moved instructions
    by_stub = counters.install(*any_task(), stubbed, thread_pcs, wide,
                               wide || !wide_bps.empty() ? next_checkpoint_pcs() : std::vector<uint64_t>{}, wide_bps,
                               &moves);
    for (const SegmentThread& t : live)
      if (Result<user_regs_struct> r = t.task->regs(); r.ok())
        if (auto it = moves.find(r->rip); it != moves.end()) {
          r->rip = it->second;
          TRY(t.task->set_regs(*r));
        }
    all_counted = by_stub.size() == want.size();
    if (window_from) {
      if (by_stub.count(window_from->pc)) counters.aim(window_from->tid, window_from->pc, window_from->n);
    } else if (target.n > 0 && !target.watch && by_stub.count(target.pc)) {
      counters.aim(target.tid, target.pc, target.n);
    }
  }
  for (uint64_t a : want) {
    counted.insert(a);
    if (by_stub.count(a)) continue;
    if (!insert_at(a).ok()) pending.insert(a);
  }
  // Stubs and int3s together order their arrivals only by the counter
  // windows each trap closes (mixed_counts), which only a collection needs
  // (a seek or a locate goes by each pc's count); a capped one (the tail
  // search) goes by int3s alone.
  if (!all_counted && mode == Mode::Collect && !target_stub_only && !window_from) {
    if (by_stub.empty() || collect_cap != SIZE_MAX) TRY(stop_counting());
    else mixed_counts = true;
  }
  if (!armed.empty() && !watches_late) TRY(arm_watches_everywhere());
  if (mode == Mode::Live) {
    if (stop_at_start) return pause(plain_stop(running_thread_of(k)));
    return ok_status();
  }
  if (!target.is_start() || target.k != k) return ok_status();
  return anchor_reached(plain_stop(running_thread_of(k)));
}

Result<std::optional<process::WaitResult>> ThreadedTimeline::Impl::go_on(const SegmentThread& th) {
  for (;;) {
    user_regs_struct r = TRY(th.task->regs());
    auto it = inserted.find(r.rip);
    if (it == inserted.end()) return std::optional<process::WaitResult>();
    const uint64_t addr = r.rip;
    TRY(th.task->write_memory(RemoteAddr(addr), {&it->second, 1}));
    TRY(th.task->singlestep());
    process::WaitResult w = TRY(th.task->wait());
    if (inserted.count(addr)) TRY(th.task->write_memory(RemoteAddr(addr), {&kInt3, 1}));
    if (w.kind != process::StopKind::SignalDelivery || w.signo != SIGTRAP) return std::optional(w);
    siginfo_t si = TRY(th.task->siginfo());
    if (si.si_code != TRAP_TRACE && si.si_code != TRAP_BRKPT && si.si_code != TRAP_HWBKPT) return std::optional(w);
    const bool asked = step_tid && *step_tid == th.recorded;
    if (!armed.empty())  // the instruction under the breakpoint may touch a watched range
      if (const unsigned fired = TRY(take_fired_watches(th.task->raw_tid())); fired) {
        TRY(arrived_at_watch(th, fired, TRY(th.task->regs()).rip, asked));
        if (command == Command::Abort) return Error::msg("replay aborted");
      }
    if (!asked) return std::optional<process::WaitResult>();
    step_tid.reset();
    TRY(step_done(th));  // the step asked for was this one; then maybe another
    if (command == Command::Abort) return Error::msg("replay aborted");
    if (step_tid && *step_tid == th.recorded) {
      r = TRY(th.task->regs());
      if (!inserted.count(r.rip)) return std::optional<process::WaitResult>();
    }
  }
}

Status ThreadedTimeline::Impl::at_history_end(const store::Event* exit) {
  if (command == Command::Abort) return Error::msg("replay aborted");
  TRY(stop_counting());
  cur = Position{k, true};
  ThreadedStop s;
  s.thread = exit ? exit->tid : (live.empty() ? Tid{} : live.front().recorded);
  if (exit && exit->signo) {
    s.stop.cause = StopCause::Exited;
    s.stop.signo = exit->signo;
  } else if (exit) {
    s.stop.cause = StopCause::Exited;
    s.stop.exit_status = exit->exit_status;
  } else {
    s.stop.cause = StopCause::HistoryEnd;
  }
  if (mode == Mode::Collect) return finish_collect();
  if (mode == Mode::Measure && measuring && measure_end == MeasureEnd::NextResume) {
    end_measure();  // the thread's exit call: the last instruction it stepped to
    return ok_status();
  }
  if (mode == Mode::Seek && !target.end) return Error::msg("the position was not found in segment " + std::to_string(k));
  for (;;) TRY(pause(s));  // forward moves stay here; another move aborts the run
}

}  // namespace slsdbg::replay
