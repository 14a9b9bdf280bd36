// `catch syscall` on a replay: a forward continue stops at the entry of the
// next recorded syscall that matches (the moment its `syscall` instruction is
// about to run: after the previous event, first visit of pc - 2) and then at
// its return (right after its event), as GDB sees them in a live session.
// Breakpoints on the way stop first. A reverse continue mirrors it: it stops
// at the return of the previous matching syscall, then at its entry.
//
// Fork stops (fork-events+, vfork-events+) are found the same way: a
// continue stops at the return of each fork-family call that created a
// process, the child named (StopKind::Fork / VFork; after a vfork the next
// resume reports VForkDone where it is: the recorded parent resumed only
// once its child had exec'd or exited). A reverse continue stops there too.
// A call both caught and forking is a syscall entry, then a fork at its return.
//
// The end of history after an exit stands where the exit call (exit_group,
// or exit of the last thread) is about to run: its entry, and no return
// follows. With that call caught, a continue reaching the end shows the entry
// first and the next continue the end; a reverse continue from the end shows
// the entry without moving, then goes on back.
#include <algorithm>

#include "engine/replay/fork_events.h"
#include "gdbserver/replay/stop_mapping.h"
#include "gdbserver/replay/timeline_target.h"
#include "process/syscallbuf_site.h"
#include "process/syscallbuf_stub.h"

namespace slsdbg::gdbserver {

namespace {

// Where a caught call returns: right after its event, at the pc after its
// `syscall`. A call followed by a forced checkpoint returns at that
// checkpoint, the next segment's start (replay crosses it by restore, so
// nothing runs after the event in this segment): a vfork-style call, whose
// child wrote into the caller's memory, an unmodelled call, and the call at
// whose exit stop the recorder patched its glibc site for the syscall
// buffer (it returns past the patch). So does a call that is its segment's
// last event when the next checkpoint was taken at its exit stop (a tick
// due then): nothing of this segment runs after it, and the return moment
// is that checkpoint's start.
Result<replay::Moment> syscall_return(const store::RecordingReader& reader, const replay::Moment& entry) {
  const replay::Moment ret{entry.checkpoint, entry.event + 1, entry.pc + 2, 1};
  const std::vector<store::Event> events = TRY(reader.segment_events(SegmentId(entry.checkpoint)));
  if (entry.checkpoint + 1 >= reader.checkpoints().size()) return ret;
  if (entry.event + 1 >= events.size()) {
    if (entry.event >= events.size()) return ret;
    // An unreadable state (a damaged recording) keeps the return in this
    // segment, as before: the catch still works wherever it did.
    const Result<store::ProcessState> next = reader.process_state(CheckpointId(entry.checkpoint + 1));
    const store::Event& call = events[entry.event];
    // The call's return value in rax at its pc: the checkpoint stands where
    // the call returned (a jump back to that pc would have run other code).
    if (next.ok() && !next->threads.empty() && next->threads[0].regs.rip == ret.pc &&
        static_cast<int64_t>(next->threads[0].regs.rax) == call.result)
      return replay::Moment{entry.checkpoint + 1, 0, ret.pc, 1};
    return ret;
  }
  const store::Event& next = events[entry.event + 1];
  if (next.kind != store::EventKind::ForcedCheckpoint) return ret;
  return replay::Moment{entry.checkpoint + 1, 0, next.pc, 1};
}

// A call made through the syscall buffer runs its `syscall` in the stub's
// page, where GDB has no symbol and no unwind info (its backtrace there is
// garbage). The moment to show instead, from the stub's `syscall` (about to
// run, or just run; process/syscallbuf_site.h): at the entry, where the
// patched glibc site's `call` is about to run (the address of glibc's own
// `syscall`, every register as glibc set it); at the return, where the
// stub's `ret` lands (rax the result, rcx and r11 as a `syscall` leaves them).
Result<std::optional<replay::Moment>> stub_call_site(replay::Timeline& t) {
  const user_regs_struct r = TRY(t.regs());
  const std::optional<process::SysbufCallSite> site =
      process::sysbuf_call_site(r.rip, r.rsp, [&t](uint64_t addr, std::span<uint8_t> out) {
        return t.read_memory(addr, out).ok();
      });
  if (!site) return std::optional<replay::Moment>();
  const replay::Moment now = TRY(t.current_moment());
  const uint64_t pc = r.rip == process::sysbuf_stub_layout().slow ? site->pc : site->back;
  return std::optional<replay::Moment>(replay::Moment{now.checkpoint, now.event, pc, 1});
}

}  // namespace

// Where a caught call's entry or return is shown: at its glibc site when
// the timeline stands in the syscall buffer's stub (stub_call_site). Empty
// when it stands there now; else the stop that cut the move short.
Result<std::optional<StopReason>> TimelineTarget::to_call_site(StopRequest& stop) {
  replay::Timeline* t = TRY(live());
  const std::optional<replay::Moment> site = TRY(stub_call_site(*t));
  if (!site) return std::optional<StopReason>();
  StopReason r = TRY(move(&stop, [&] { return t->goto_moment(*site); }));
  if (r.kind == StopKind::Signal && r.signal == SIGTRAP) return std::optional<StopReason>();
  return std::optional<StopReason>(r);
}

Status TimelineTarget::catch_syscalls(bool enabled, const std::vector<int64_t>& numbers) {
  catching_ = enabled;
  caught_ = std::set<int64_t>(numbers.begin(), numbers.end());
  return ok_status();
}

void TimelineTarget::report_forks(bool fork, bool vfork) {
  const bool children = replay::may_have_children(reader_);
  fork_stops_ = fork && children;
  vfork_stops_ = vfork && children;
}

bool TimelineTarget::catches(const store::Event& ev) const {
  return catching_ && (caught_.empty() || caught_.count(ev.syscall_no));
}

bool TimelineTarget::stops_at(const store::Event& ev) const {
  if (ev.kind != store::EventKind::Syscall || ev.pc < 2) return false;
  return catches(ev) || ((fork_stops_ || vfork_stops_) && replay::may_fork(ev));
}

// The fork stop of `ev` if it made a process the client follows; memory is
// read where the timeline stands (the call's entry or return).
Result<std::optional<StopReason>> TimelineTarget::fork_stop(const store::Event& ev) {
  replay::Timeline* t = TRY(live());
  const replay::ForkKind kind = replay::fork_kind(ev, [t](uint64_t addr) -> std::optional<uint64_t> {
    uint64_t word = 0;
    auto got = t->read_memory(addr, {reinterpret_cast<uint8_t*>(&word), sizeof word});
    if (!got.ok()) return std::nullopt;
    return word;
  });
  if ((kind == replay::ForkKind::Fork && fork_stops_) || (kind == replay::ForkKind::VFork && vfork_stops_))
    return std::optional<StopReason>(
        StopReason::fork(tid_, kind == replay::ForkKind::Fork ? StopKind::Fork : StopKind::VFork, Tid(static_cast<int32_t>(ev.result))));
  return std::optional<StopReason>();
}

// The first call to stop at whose event lies at or after `from`'s next event.
Result<std::optional<TimelineTarget::CaughtCall>> TimelineTarget::next_caught_syscall(const replay::Moment& from) {
  replay::Timeline* t = TRY(live());
  const uint64_t segments = t->checkpoint_count();
  for (uint64_t k = from.checkpoint; k < segments; k++) {
    auto events = reader_.segment_events(SegmentId(k));
    if (!events.ok()) break;
    for (uint64_t i = k == from.checkpoint ? from.event : 0; i < events->size(); i++) {
      const store::Event& ev = (*events)[i];
      if (stops_at(ev)) return std::optional<CaughtCall>(CaughtCall{replay::Moment{k, i, ev.pc - 2, 1}, ev});
    }
  }
  return std::optional<CaughtCall>();
}

// From a call's entry (the timeline stands there) to its return: a fork stop
// when it made a process the client follows, else the syscall's return.
Result<StopReason> TimelineTarget::to_return(const CaughtCall& call, StopRequest& stop) {
  replay::Timeline* t = TRY(live());
  const replay::Moment ret = TRY(syscall_return(reader_, call.entry));
  const std::optional<StopReason> fork = TRY(fork_stop(call.event));
  StopReason r = TRY(move(&stop, [&] { return t->goto_moment(ret); }));
  if (r.kind != StopKind::Signal || r.signal != SIGTRAP) return r;
  if (fork) {
    r = *fork;
    vfork_done_due_ = fork->kind == StopKind::VFork;
  } else {
    if (auto other = TRY(to_call_site(stop))) return *other;
    r.kind = StopKind::SyscallReturn;
    r.syscall_no = call.event.syscall_no;
  }
  last_reason_ = r;
  at_syscall_return_ = call;
  return r;
}

// Runs `direction` until the timeline stands at `m` (a breakpoint at its pc
// for the while, unless the client has one there) or stops for the client
// first; `arrived` says which. Other visits of m's pc run on.
Result<StopReason> TimelineTarget::run_to(const replay::Moment& m, replay::Direction direction, StopRequest& stop,
                                          bool& arrived) {
  replay::Timeline* t = TRY(live());
  const bool user_breakpoint = breakpoints_.count(m.pc) != 0;
  if (!user_breakpoint) TRY(t->add_breakpoint(m.pc));
  arrived = false;
  auto r = move(&stop, [&]() -> Result<replay::TimelineStop> {
    for (;;) {
      replay::TimelineStop s = TRY(t->resume(direction, replay::Motion::Continue));
      if (s.cause != replay::StopCause::Breakpoint || s.pc != m.pc) return s;
      arrived = TRY(t->current_moment()) == m;
      if (arrived || user_breakpoint) return s;
    }
  });
  if (!user_breakpoint) (void)t->remove_breakpoint(m.pc);
  return r;
}

Result<StopReason> TimelineTarget::resume_catching(StopRequest& stop) {
  replay::Timeline* t = TRY(live());
  if (at_syscall_entry_) return to_return(*at_syscall_entry_, stop);
  if (t->last_stop().cause == replay::StopCause::Signal) {
    // Finding the next call needs the exact moment, and resolving it
    // re-runs the path to just before the recorded signal, which the next
    // resume then reports again, for ever: one step delivers it first.
    // (A caught call whose `syscall` is that very instruction is missed.)
    StopReason r = TRY(move(&stop, [&] { return t->resume(replay::Direction::Forward, replay::Motion::Step); }));
    if (r.kind != StopKind::Signal || r.signal != SIGTRAP) return r;
  }
  for (;;) {
    auto next = TRY(next_caught_syscall(TRY(t->current_moment())));
    if (!next) return move(&stop, [&] { return t->resume(replay::Direction::Forward, replay::Motion::Continue); });
    const replay::Moment entry = next->entry;
    bool at_entry = false;
    auto r = run_to(entry, replay::Direction::Forward, stop, at_entry);
    if (!r.ok() || !at_entry) return r;
    if (catches(next->event)) {
      if (auto other = TRY(to_call_site(stop))) return *other;
      r->kind = StopKind::SyscallEntry;
      r->syscall_no = next->event.syscall_no;
      at_syscall_entry_ = *next;
      last_reason_ = *r;
      return r;
    }
    if (TRY(fork_stop(next->event))) return to_return(*next, stop);
    // A clone that made a thread, not a process: on from its return.
    const replay::Moment ret = TRY(syscall_return(reader_, entry));
    StopReason past = TRY(move(&stop, [&] { return t->goto_moment(ret); }));
    if (past.kind != StopKind::Signal || past.signal != SIGTRAP) return past;
  }
}

Result<StopReason> TimelineTarget::exit_entry_first(const StopReason& r) {
  replay::Timeline* t = TRY(live());
  const std::optional<StopReason> entry =
      TRY(exit_call_entry(r, t->last_stop(), [t] { return t->regs(); }, catching_, caught_));
  if (!entry) return r;
  notes_.clear();  // "the program exited here" comes with the end, next
  at_exit_entry_ = true;
  last_reason_ = *entry;
  return *entry;
}

// The last call to stop at whose event lies before event `before.second`
// of segment `before.first`.
Result<std::optional<TimelineTarget::CaughtCall>> TimelineTarget::previous_caught_syscall(
    std::pair<uint64_t, uint64_t> before) {
  for (uint64_t k = before.first + 1; k-- > 0;) {
    auto events = reader_.segment_events(SegmentId(k));
    if (!events.ok()) continue;
    for (uint64_t i = k == before.first ? std::min<uint64_t>(before.second, events->size()) : events->size(); i-- > 0;) {
      const store::Event& ev = (*events)[i];
      if (stops_at(ev)) return std::optional<CaughtCall>(CaughtCall{replay::Moment{k, i, ev.pc - 2, 1}, ev});
    }
  }
  return std::optional<CaughtCall>();
}

Result<StopReason> TimelineTarget::reverse_catching(StopRequest& stop) {
  replay::Timeline* t = TRY(live());
  // From a syscall's return, the step back is its entry: nothing runs between.
  auto back_to_entry = [&](const CaughtCall& call) -> Result<StopReason> {
    StopReason r = TRY(move(&stop, [&] { return t->goto_moment(call.entry); }));
    if (r.kind != StopKind::Signal || r.signal != SIGTRAP) return r;
    if (auto other = TRY(to_call_site(stop))) return *other;
    r.kind = StopKind::SyscallEntry;
    r.syscall_no = call.event.syscall_no;
    last_reason_ = r;
    at_syscall_entry_ = call;
    return r;
  };
  // At the return of `call`: its fork stop, its caught return, or nothing.
  auto at_return_of = [&](const CaughtCall& call, StopReason r) -> Result<std::optional<StopReason>> {
    if (std::optional<StopReason> fork = TRY(fork_stop(call.event))) {
      r = *fork;
      vfork_done_due_ = fork->kind == StopKind::VFork;
    } else if (catches(call.event)) {
      if (auto other = TRY(to_call_site(stop))) return other;
      r.kind = StopKind::SyscallReturn;
      r.syscall_no = call.event.syscall_no;
    } else {
      return std::optional<StopReason>();
    }
    at_syscall_return_ = call;
    last_reason_ = r;
    return std::optional<StopReason>(r);
  };
  if (at_syscall_return_ && catches(at_syscall_return_->event)) return back_to_entry(*at_syscall_return_);
  replay::Moment now = TRY(t->current_moment());
  std::pair<uint64_t, uint64_t> before{now.checkpoint, now.event};
  for (;;) {
    auto prev = TRY(previous_caught_syscall(before));
    if (!prev) return move(&stop, [&] { return t->resume(replay::Direction::Backward, replay::Motion::Continue); });
    before = {prev->entry.checkpoint, prev->entry.event};
    const replay::Moment ret = TRY(syscall_return(reader_, prev->entry));
    if (now == ret) {
      if (catches(prev->event)) return back_to_entry(*prev);
      continue;  // the fork stop the client is at: the search goes on before it
    }
    if (ret.event == 0 && ret.checkpoint != prev->entry.checkpoint) {
      // A return at a checkpoint's start is no breakpoint hit: a reverse
      // continue that stops at or after that checkpoint stopped on the way;
      // one that went past it found nothing, and the return is the stop.
      // FIXME: that search runs to the start of history, not just to the
      // checkpoint; it happens once per recording (the first patch) and at
      // each vfork.
      bool at_return = false;
      auto r = move(&stop, [&]() -> Result<replay::TimelineStop> {
        replay::TimelineStop s = TRY(t->resume(replay::Direction::Backward, replay::Motion::Continue));
        if (TRY(t->current_moment()).checkpoint >= ret.checkpoint) return s;
        at_return = true;
        return t->goto_moment(ret);
      });
      if (!r.ok() || !at_return || r->kind != StopKind::Signal || r->signal != SIGTRAP) return r;
      if (auto stop_here = TRY(at_return_of(*prev, *r))) return *stop_here;
      now = ret;
      continue;
    }
    bool at_return = false;
    auto r = run_to(ret, replay::Direction::Backward, stop, at_return);
    if (!r.ok() || !at_return) return r;
    if (auto stop_here = TRY(at_return_of(*prev, *r))) return *stop_here;
    now = ret;
  }
}

}  // namespace slsdbg::gdbserver
