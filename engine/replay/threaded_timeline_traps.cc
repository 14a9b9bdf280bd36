// A threaded run's traps: arrivals at breakpoints and counter stubs,
// watch hits (named by thread, pc and access count), single steps.
#include "engine/replay/threaded_timeline_impl.h"

namespace slsdbg::replay {

bool ThreadedTimeline::Impl::step_on_resume(Tid thread, bool own) {
  executed = true;
  refresh_breakpoints();
  if (!counters.empty() && any_task())
    if (Status s = counters.switch_to(*any_task(), thread); !s.ok() && pending_status.ok()) pending_status = std::move(s);
  if (!after_trap.erase(thread.value) && own) {
    const uint64_t m = ++resumes[thread.value];
    if (thread == target.tid && mode == Mode::Locate) count_at_resume = counters.count(thread, target.pc);
    if (thread == target.tid && command != Command::Abort) {
      if (mode == Mode::Measure && measuring && measure_end == MeasureEnd::NextResume && m == target.resume_m + 1) {
        end_measure();
        return false;
      }
      if (mode == Mode::Measure && m == target.resume_m) {
        measuring = true;
        step_tid = thread;
        if (measure_end == MeasureEnd::Registers || (measure_end == MeasureEnd::Arrival && located_j == 1))
          for (SegmentThread& t : live)
            if (t.recorded == thread)
              if (auto r = t.task->regs();
                  r.ok() && (measure_end == MeasureEnd::Registers ? same_regs(*r, measure_want)
                                                                  : r->rip == target.pc && !target.watch)) {
                // Already there: no instruction since the resume (an
                // arrival at the pc a call returns to).
                end_measure();
                return false;
              }
      } else if ((mode == Mode::Seek || mode == Mode::Collect) && !at_anchor && target.resume_m == m) {
        cur = Position{k, false, thread, 0, 0, {}, m};
        pending_status = anchor_reached(plain_stop(thread));
      }
    }
  }
  return step_tid && *step_tid == thread;
}

Status ThreadedTimeline::Impl::anchor_reached(ThreadedStop s) {
  if (mode != Mode::Collect || !target.steps.empty()) TRY(stop_counting());  // steps go through the program's code
  if (mode == Mode::Collect) {
    if (!target.steps.empty() && target.n > 0 && !target.watch && user_bps.count(target.pc))
      hits.push_back(Hit{cur, {}, false, cur.tid, counters.windows()});
    if (target.steps.empty()) return finish_collect();
    // The steps too: a watched access among them is a hit before target.
    at_anchor = true;
    steps_done = 0;
    step_tid = target.steps[0];
    return ok_status();
  }
  if (target.steps.empty()) return pause(std::move(s));
  at_anchor = true;
  steps_done = 0;
  step_tid = target.steps[0];
  return ok_status();
}

Status ThreadedTimeline::Impl::arrived_at_breakpoint(const SegmentThread& th, uint64_t addr) {
  const uint64_t n = ++counts[{th.recorded.value, addr}];
  if (mode == Mode::Locate && th.recorded == target.tid && addr == target.pc) {
    const uint64_t m = resumes[th.recorded.value];
    located_j = m == last_m ? located_j + 1 : 1;
    last_m = m;
    if (n == target.n) {
      located_m = m;
      if (!counters.empty()) TRY(counters.flush(*th.task));  // the stubs' counts up to here (ways_in)
      return finish_collect();
    }
    return ok_status();
  }
  SLSDBG_DEBUG("replay", "segment %llu: thread %d's arrival %llu at 0x%llx", (unsigned long long)k, th.recorded.value,
               (unsigned long long)n, (unsigned long long)addr);
  cur = Position{k, false, th.recorded, addr, n, {}};
  ThreadedStop s;
  s.stop.cause = StopCause::Breakpoint;
  s.stop.pc = addr;
  s.thread = th.recorded;
  if (mode == Mode::Live) return user_bps.count(addr) ? pause(s) : ok_status();
  // Mixed: the stubs' counts up to this trap come before it.
  if (mode == Mode::Collect && mixed_counts && !counters.empty()) TRY(counters.flush(*th.task));
  // A window may open at the target's own anchor (its steps follow).
  if (mode == Mode::Collect && window_from && !window_open && cur.same_anchor(*window_from)) TRY(open_window());
  if (!at_anchor && cur.same_anchor(target)) return anchor_reached(s);
  if (mode == Mode::Collect && user_bps.count(addr)) return add_hit(Hit{cur, {}, false, cur.tid, counters.windows()});
  return ok_status();
}

ThreadedStop ThreadedTimeline::Impl::watch_stop(Tid t, const WatchRange& w, uint64_t pc) {
  ThreadedStop s;
  s.stop.cause = StopCause::Watchpoint;
  s.stop.pc = pc;
  s.stop.watch_addr = w.addr;
  s.stop.watch_kind = w.kind;
  s.thread = t;
  return s;
}

Status ThreadedTimeline::Impl::arrived_at_watch(const SegmentThread& th, unsigned fired, uint64_t pc, bool asked) {
  if (asked && mode == Mode::Collect && at_anchor)  // cur is still before the access
    for (size_t i = 0; i < armed.size(); i++)
      if ((fired & (1u << i)) && user_watches.count(armed[i])) {
        hits.push_back(Hit{cur, armed[i], true, th.recorded});
        break;
      }
  std::optional<Position> user_hit;
  for (size_t i = 0; i < armed.size(); i++) {
    if (!(fired & (1u << i))) continue;
    const WatchRange& w = armed[i];
    const uint64_t n = ++wcounts[{th.recorded.value, pc, w}];
    Position p{k, false, th.recorded, pc, n, {}, 0, w};
    if (mode == Mode::Locate) {
      if (target.watch == w && th.recorded == target.tid && pc == target.pc) {
        const uint64_t m = resumes[th.recorded.value];
        located_j = m == last_m ? located_j + 1 : 1;
        last_m = m;
        if (n == target.n) {
          located_m = m;
          // The counts of the run since the thread's last resume are
          // its too (the ways into the pc after the access).
          if (!counters.empty()) TRY(counters.flush(*th.task));
          return finish_collect();
        }
      }
      continue;
    }
    if (asked) continue;
    if ((mode == Mode::Seek || mode == Mode::Collect) && !at_anchor && p.same_anchor(target)) {
      cur = p;
      return anchor_reached(watch_stop(th.recorded, w, pc));
    }
    if (!user_hit && user_watches.count(w)) user_hit = p;
  }
  if (asked || !user_hit) return ok_status();
  SLSDBG_DEBUG("replay", "segment %llu: thread %d's access %llu to 0x%llx (pc 0x%llx)", (unsigned long long)k,
               th.recorded.value, (unsigned long long)user_hit->n, (unsigned long long)user_hit->watch->addr,
               (unsigned long long)pc);
  if (mode == Mode::Live) {
    if (naming) cur = arrival_after(th.recorded, pc);
    else if (!wcounts_exact) unnamed_hit = UnnamedHit{th.recorded, pc};
    else cur = *user_hit;
    return pause(watch_stop(th.recorded, *user_hit->watch, pc));
  }
  if (mode == Mode::Collect && window_from) {
    // Named by the thread's arrival at the pc after the access when that
    // pc is counted (n 0: not counted).
    const Position a = counted.count(pc) ? arrival_after(th.recorded, pc) : Position{k, false, th.recorded, pc, 0, {}};
    return add_hit(Hit{a, user_hit->watch, false, th.recorded});
  }
  if (mode == Mode::Collect) return add_hit(Hit{*user_hit, user_hit->watch, false, th.recorded});
  return ok_status();
}

Status ThreadedTimeline::Impl::step_done(const SegmentThread& th) {
  cur.steps.push_back(th.recorded);
  ThreadedStop s = plain_stop(th.recorded);
  if (mode == Mode::Live) return pause(s);
  if (mode == Mode::Seek && at_anchor) {
    if (++steps_done == target.steps.size()) {
      at_anchor = false;
      return pause(s);
    }
    step_tid = target.steps[steps_done];
  }
  if (mode == Mode::Collect && at_anchor) {
    // A breakpoint the steps arrive at before the target is a hit too
    // (the steps of a reverse step's position run whole functions).
    if (++steps_done < target.steps.size() && !user_bps.empty())
      if (Result<user_regs_struct> r = th.task->regs(); r.ok() && user_bps.count(r->rip))
        hits.push_back(Hit{cur, {}, false, th.recorded, counters.windows()});
    if (steps_done == target.steps.size()) return finish_collect();
    step_tid = target.steps[steps_done];
  }
  return ok_status();
}

Result<std::optional<process::WaitResult>> ThreadedTimeline::Impl::trapped(const SegmentThread& th,
                                                    const process::WaitResult& w) {
  TRY(std::exchange(pending_status, ok_status()));
  auto r = trapped_here(th, w);
  if (r.ok() && !*r) after_trap.insert(th.recorded.value);  // it resumes next: not one of its own resumes
  return r;
}

Result<std::optional<process::WaitResult>> ThreadedTimeline::Impl::trapped_here(const SegmentThread& th,
                                                                                const process::WaitResult& w) {
  if (command == Command::Abort) return Error::msg("replay aborted");
  siginfo_t si = TRY(th.task->siginfo());
  const bool asked = si.si_code != SI_KERNEL && step_tid && *step_tid == th.recorded;
  const unsigned fired = !armed.empty() && si.si_code != SI_KERNEL
                             ? lost_dr6_watch(TRY(take_fired_watches(th.task->raw_tid())), si, asked)
                             : 0u;
  // A hardware trap that is not a watch of ours: the breakpoint reaching
  // the next checkpoint (thread_reach.h). The segment's replay handles it.
  if (si.si_code == TRAP_HWBKPT && !fired) return std::optional<process::WaitResult>(w);
  if (measuring && asked) {
    user_regs_struct regs = TRY(th.task->regs());
    measured++;
    if (!in_sysbuf_stub(regs.rip)) measured_in_program = measured;
    if (measure_end == MeasureEnd::Registers && same_regs(regs, measure_want)) return finish_collect().take_error();
    const bool there = measure_end == MeasureEnd::Arrival && regs.rip == target.pc &&
                       (!target.watch || (fired & slot_bit(*target.watch)));
    if (there && ++seen == located_j) return finish_collect().take_error();
    if (measured > kMaxReverseStepDistance)
      return Error::msg("the instruction before this breakpoint arrival is more than " +
                        std::to_string(kMaxReverseStepDistance) + " instructions after the thread's last system call");
    return std::optional<process::WaitResult>();  // step_tid stays: the next resume steps again
  }
  user_regs_struct r = TRY(th.task->regs());
  std::optional<uint64_t> shown;  // the program's pc of a thread left among a stub's moved instructions
  if (fired && !counters.empty()) {
    // A watch that fired in a counter stub's copy of the counted
    // instruction: the thread goes on from the program's code after it.
    // After one of several moved instructions, it goes on in the stub,
    // and is where that instruction was (stop_counting puts it there).
    bool inside = false;
    if (const std::optional<uint64_t> end = counters.site_end_at(r.rip, inside)) {
      r.rip = *end;
      TRY(th.task->set_regs(r));
    } else if (inside) {
      shown = counters.moved_from(r.rip);
      if (!shown)
        return Error::msg("a watched access inside a counter stub at " + hex_addr(r.rip) +
                          " (a moved string instruction): not supported yet");
    }
  }
  if (si.si_code == SI_KERNEL && !counters.empty())
    if (const std::optional<uint64_t> pc = counters.reached(r.rip)) {
      TRY(arrived_by_counter(th, *pc, r));
      return go_on(th);
    }
  if (si.si_code == SI_KERNEL) {
    const uint64_t addr = r.rip - 1;
    if (!inserted.count(addr)) {
      SLSDBG_DEBUG("replay", "thread %d: an int3 not ours at 0x%llx", th.recorded.value, (unsigned long long)addr);
      return std::optional<process::WaitResult>(w);  // the program's own int3
    }
    r.rip = addr;
    TRY(th.task->set_regs(r));
    TRY(arrived_at_breakpoint(th, addr));
  } else {
    if (fired) {
      TRY(arrived_at_watch(th, fired, shown.value_or(r.rip), asked));
      if (!asked) {
        // On an int3 of ours after the access: the thread arrives there
        // when it runs on, and its int3 counts that arrival, as a counter
        // stub there would (stepping over it lost the arrival).
        if (inserted.count(TRY(th.task->regs()).rip)) return std::optional<process::WaitResult>();
        return go_on(th);
      }
    }
    if (!asked) return std::optional<process::WaitResult>(w);
    step_tid.reset();
    TRY(step_done(th));
  }
  return go_on(th);
}

unsigned ThreadedTimeline::Impl::lost_dr6_watch(unsigned fired, const siginfo_t& si, bool asked) const {
  if (fired || asked || si.si_code != TRAP_BRKPT || armed.size() != 1 || (watches_late && !late_armed)) return fired;
  SLSDBG_DEBUG("replay", "a trap with DR6 empty: taken as the one watch armed");
  return slot_bit(armed[0]);
}

Status ThreadedTimeline::Impl::arrived_by_counter(const SegmentThread& th, uint64_t pc, user_regs_struct r) {
  TRY(counters.flush(*th.task));
  const uint64_t n = counters.count(th.recorded, pc);
  SLSDBG_DEBUG("replay", "segment %llu: thread %d's arrival %llu at 0x%llx (counted in-process)", (unsigned long long)k,
               th.recorded.value, (unsigned long long)n, (unsigned long long)pc);
  if (mode == Mode::Locate) {
    located_m = resumes[th.recorded.value];
    located_j = n - count_at_resume;
    return finish_collect();
  }
  if (mode == Mode::Collect && window_from && !window_open) {
    r.rip = pc;  // as below: the stubs go, pc's own instruction next
    TRY(th.task->set_regs(r));
    cur = Position{k, false, th.recorded, pc, n, {}};
    if (!cur.same_anchor(*window_from)) return Error::msg("internal: a window's counted start was not its own");
    TRY(open_window());
    if (at_anchor || !cur.same_anchor(target)) return ok_status();
    ThreadedStop s;
    s.stop.cause = StopCause::Breakpoint;
    s.stop.pc = pc;
    s.thread = th.recorded;
    return anchor_reached(s);
  }
  // A collection's aimed arrival ends it, unless steps follow (anchor_reached).
  if (mode == Mode::Collect && target.steps.empty()) return finish_collect();
  r.rip = pc;  // the stubs go: the thread runs pc's own instruction next
  TRY(th.task->set_regs(r));
  TRY(stop_counting());
  cur = Position{k, false, th.recorded, pc, n, {}};
  ThreadedStop s;
  s.stop.cause = StopCause::Breakpoint;
  s.stop.pc = pc;
  s.thread = th.recorded;
  if (cur.same_anchor(target)) return anchor_reached(s);
  return ok_status();
}

}  // namespace slsdbg::replay
