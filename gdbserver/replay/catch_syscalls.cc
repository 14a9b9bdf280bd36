// `catch syscall` on a replay: a forward continue stops at the entry of the
// next recorded syscall that matches (the moment its `syscall` instruction is
// about to run: after the previous event, first visit of pc - 2) and then at
// its return (right after its event), as GDB sees them in a live session.
// Breakpoints on the way stop first. A reverse continue mirrors it: it stops
// at the return of the previous matching syscall, then at its entry.
#include "gdbserver/replay/timeline_target.h"

#include <algorithm>

namespace slsdbg::gdbserver {

namespace {

// Where a caught call returns: right after its event, at the pc after its
// `syscall`. The call at whose exit stop the recorder patched its glibc
// site for the syscall buffer returns past the patch instead, where the
// forced checkpoint that follows it stands (the next segment's start).
Result<replay::Moment> syscall_return(const store::RecordingReader& reader, const replay::Moment& entry) {
  const replay::Moment ret{entry.checkpoint, entry.event + 1, entry.pc + 2, 1};
  const std::vector<store::Event> events = TRY(reader.segment_events(SegmentId(entry.checkpoint)));
  if (entry.event + 1 >= events.size() || entry.checkpoint + 1 >= reader.checkpoints().size()) return ret;
  const store::Event& next = events[entry.event + 1];
  if (next.kind != store::EventKind::ForcedCheckpoint || next.pc == ret.pc) return ret;
  return replay::Moment{entry.checkpoint + 1, 0, next.pc, 1};
}

}  // namespace

Status TimelineTarget::catch_syscalls(bool enabled, const std::vector<int64_t>& numbers) {
  catching_ = enabled;
  caught_ = std::set<int64_t>(numbers.begin(), numbers.end());
  return ok_status();
}

// The first matching syscall event at or after the current moment's next event.
Result<std::optional<std::pair<replay::Moment, int64_t>>> TimelineTarget::next_caught_syscall() {
  replay::Timeline* t = TRY(live());
  const replay::Moment now = TRY(t->current_moment());
  const uint64_t segments = t->checkpoint_count();
  for (uint64_t k = now.checkpoint; k < segments; k++) {
    auto events = reader_.segment_events(SegmentId(k));
    if (!events.ok()) break;
    for (uint64_t i = k == now.checkpoint ? now.event : 0; i < events->size(); i++) {
      const store::Event& ev = (*events)[i];
      if (ev.kind != store::EventKind::Syscall || ev.pc < 2) continue;
      if (!caught_.empty() && !caught_.count(ev.syscall_no)) continue;
      return std::optional<std::pair<replay::Moment, int64_t>>{{replay::Moment{k, i, ev.pc - 2, 1}, ev.syscall_no}};
    }
  }
  return std::optional<std::pair<replay::Moment, int64_t>>{};
}

Result<StopReason> TimelineTarget::resume_catching(StopRequest& stop) {
  replay::Timeline* t = TRY(live());
  if (at_syscall_entry_) {
    const auto [entry, nr] = *at_syscall_entry_;
    const replay::Moment ret = TRY(syscall_return(reader_, entry));
    StopReason r = TRY(move(&stop, [&] { return t->goto_moment(ret); }));
    if (r.kind != StopKind::Signal || r.signal != SIGTRAP) return r;
    r.kind = StopKind::SyscallReturn;
    r.syscall_no = nr;
    last_reason_ = r;
    at_syscall_return_ = {entry, nr};
    return r;
  }
  auto next = TRY(next_caught_syscall());
  if (!next) return move(&stop, [&] { return t->resume(replay::Direction::Forward, replay::Motion::Continue); });
  const auto [entry, nr] = *next;
  const bool user_breakpoint = breakpoints_.count(entry.pc) != 0;
  if (!user_breakpoint) TRY(t->add_breakpoint(entry.pc));
  bool at_entry = false;
  auto r = move(&stop, [&]() -> Result<replay::TimelineStop> {
    for (;;) {
      replay::TimelineStop s = TRY(t->resume(replay::Direction::Forward, replay::Motion::Continue));
      if (s.cause != replay::StopCause::Breakpoint || s.pc != entry.pc) return s;
      at_entry = TRY(t->current_moment()) == entry;
      if (at_entry || user_breakpoint) return s;  // else an earlier syscall through the same instruction
    }
  });
  if (!user_breakpoint) (void)t->remove_breakpoint(entry.pc);
  if (!r.ok() || !at_entry) return r;
  r->kind = StopKind::SyscallEntry;
  r->syscall_no = nr;
  at_syscall_entry_ = {entry, nr};
  last_reason_ = *r;
  return r;
}

// The last matching syscall event before the current moment (its entry moment).
Result<std::optional<std::pair<replay::Moment, int64_t>>> TimelineTarget::previous_caught_syscall() {
  replay::Timeline* t = TRY(live());
  const replay::Moment now = TRY(t->current_moment());
  for (uint64_t k = now.checkpoint + 1; k-- > 0;) {
    auto events = reader_.segment_events(SegmentId(k));
    if (!events.ok()) continue;
    for (uint64_t i = k == now.checkpoint ? std::min<uint64_t>(now.event, events->size()) : events->size(); i-- > 0;) {
      const store::Event& ev = (*events)[i];
      if (ev.kind != store::EventKind::Syscall || ev.pc < 2) continue;
      if (!caught_.empty() && !caught_.count(ev.syscall_no)) continue;
      return std::optional<std::pair<replay::Moment, int64_t>>{{replay::Moment{k, i, ev.pc - 2, 1}, ev.syscall_no}};
    }
  }
  return std::optional<std::pair<replay::Moment, int64_t>>{};
}

Result<StopReason> TimelineTarget::reverse_catching(StopRequest& stop) {
  replay::Timeline* t = TRY(live());
  // From a syscall's return, the step back is its entry: nothing runs between.
  auto back_to_entry = [&](const replay::Moment& entry, int64_t nr) -> Result<StopReason> {
    StopReason r = TRY(move(&stop, [&] { return t->goto_moment(entry); }));
    if (r.kind != StopKind::Signal || r.signal != SIGTRAP) return r;
    r.kind = StopKind::SyscallEntry;
    r.syscall_no = nr;
    last_reason_ = r;
    at_syscall_entry_ = {entry, nr};
    return r;
  };
  if (at_syscall_return_) {
    const auto [entry, nr] = *at_syscall_return_;
    return back_to_entry(entry, nr);
  }
  auto prev = TRY(previous_caught_syscall());
  if (!prev) return move(&stop, [&] { return t->resume(replay::Direction::Backward, replay::Motion::Continue); });
  const auto [entry, nr] = *prev;
  const replay::Moment ret = TRY(syscall_return(reader_, entry));
  if (TRY(t->current_moment()) == ret) return back_to_entry(entry, nr);
  if (ret.event == 0 && ret.checkpoint != entry.checkpoint) {
    // A return at a checkpoint's start is no breakpoint hit: a reverse
    // continue that stops at or after that checkpoint stopped on the way;
    // one that went past it found nothing, and the return is the stop.
    // FIXME: that search runs to the start of history, not just to the
    // checkpoint; it happens once per recording (the first patch).
    bool at_return = false;
    auto r = move(&stop, [&]() -> Result<replay::TimelineStop> {
      replay::TimelineStop s = TRY(t->resume(replay::Direction::Backward, replay::Motion::Continue));
      if (TRY(t->current_moment()).checkpoint >= ret.checkpoint) return s;
      at_return = true;
      return t->goto_moment(ret);
    });
    if (!r.ok() || !at_return || r->kind != StopKind::Signal || r->signal != SIGTRAP) return r;
    r->kind = StopKind::SyscallReturn;
    r->syscall_no = nr;
    at_syscall_return_ = {entry, nr};
    last_reason_ = *r;
    return r;
  }
  const bool user_breakpoint = breakpoints_.count(ret.pc) != 0;
  if (!user_breakpoint) TRY(t->add_breakpoint(ret.pc));
  bool at_return = false;
  auto r = move(&stop, [&]() -> Result<replay::TimelineStop> {
    for (;;) {
      replay::TimelineStop s = TRY(t->resume(replay::Direction::Backward, replay::Motion::Continue));
      if (s.cause != replay::StopCause::Breakpoint || s.pc != ret.pc) return s;
      at_return = TRY(t->current_moment()) == ret;
      if (at_return || user_breakpoint) return s;  // else a later return through the same instruction
    }
  });
  if (!user_breakpoint) (void)t->remove_breakpoint(ret.pc);
  if (!r.ok() || !at_return) return r;
  r->kind = StopKind::SyscallReturn;
  r->syscall_no = nr;
  at_syscall_return_ = {entry, nr};
  last_reason_ = *r;
  return r;
}

}  // namespace slsdbg::gdbserver
