// The Timeline's public face: Moment text, opening, moves, traps and state
// reads. The machinery lives in timeline_traps.cc, timeline_nav.cc and
// timeline_reverse_step.cc (timeline_impl.h explains positions and counting).
#include "engine/replay/timeline.h"

#include <cstdio>
#include <cstdlib>

#include "engine/replay/conditional_breakpoint.h"
#include "engine/replay/move_cut.h"
#include "engine/replay/timeline_impl.h"
#include "process/x86_insn.h"

namespace slsdbg::replay {

namespace {

// A pc is always hex, with or without 0x (as GDB and to_string print it);
// the other fields are decimal.
Result<uint64_t> parse_number(std::string_view text, const char* what, bool hex) {
  if (text.empty()) return Error::msg(std::string("moment: empty ") + what);
  const int base = hex ? 16 : 10;
  if (hex && text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text.remove_prefix(2);
  uint64_t v = 0;
  for (char ch : text) {
    int d;
    if (ch >= '0' && ch <= '9') d = ch - '0';
    else if (base == 16 && ch >= 'a' && ch <= 'f') d = ch - 'a' + 10;
    else if (base == 16 && ch >= 'A' && ch <= 'F') d = ch - 'A' + 10;
    else return Error::msg(std::string("moment: ") + what + " '" + std::string(text) + "' is not a number");
    if (v > (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base))
      return Error::msg(std::string("moment: ") + what + " is too large");
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  return v;
}

}  // namespace

std::string Moment::to_string() const {
  char pcbuf[32];
  std::snprintf(pcbuf, sizeof pcbuf, "0x%llx", static_cast<unsigned long long>(pc));
  return std::to_string(checkpoint) + ":" + std::to_string(event) + ":" + pcbuf + ":" + std::to_string(n);
}

Result<Moment> Moment::parse(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); i++)
    if (i == text.size() || text[i] == ':') {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  Moment m;
  if (parts.size() == 1) {
    m.checkpoint = TRY(parse_number(parts[0], "checkpoint", false));
    m.pc = 0;  // the checkpoint's own pc: filled in by whoever knows the recording
    return m;
  }
  if (parts.size() != 4)
    return Error::msg("moment '" + std::string(text) + "': expected K or K:E:PC:N (e.g. 12:3:0x401136:7)");
  m.checkpoint = TRY(parse_number(parts[0], "checkpoint", false));
  m.event = TRY(parse_number(parts[1], "event", false));
  m.pc = TRY(parse_number(parts[2], "pc", true));
  m.n = TRY(parse_number(parts[3], "count", false));
  if (m.n == 0) return Error::msg("moment '" + std::string(text) + "': the count N starts at 1");
  return m;
}

Timeline::Timeline(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Timeline::~Timeline() = default;

Result<std::unique_ptr<Timeline>> Timeline::open(const store::RecordingReader& reader, TimelineOptions options) {
  auto impl = std::make_unique<Impl>(reader, std::move(options));
  impl->checkpoints = reader.checkpoints().size();
  if (impl->checkpoints == 0) return Error::msg("the recording has no checkpoint");
  if (reader.meta().threads) return Error::unsupported("this recording holds threads; this command does not take them yet (slsdbg replay with GDB: breakpoints, watchpoints, reverse-continue; --at K; bisect; and replay --check do)");
  store::ProcessState first = TRY(reader.process_state(CheckpointId(0)));
  if (first.threads.size() != 1) return Error::msg("timelines of multithreaded recordings are not supported yet");
  impl->recorded_tid = first.threads[0].tid;
  impl->pid = first.pid;
  impl->last = TRY(impl->to_checkpoint(0));
  return std::unique_ptr<Timeline>(new Timeline(std::move(impl)));
}

Result<Moment> Timeline::current_moment() {
  impl_->save_place();
  Result<Moment> m = impl_->resolve();
  if (!m.ok()) impl_->recover();
  return m;
}

CheckpointId Timeline::current_segment() const { return CheckpointId(impl_->segment); }
uint64_t Timeline::checkpoint_count() const { return impl_->checkpoints; }
TimelineStop Timeline::last_stop() const { return impl_->last; }

Result<TimelineStop> Timeline::goto_checkpoint(CheckpointId k) {
  if (k.value >= impl_->checkpoints)
    return Error::msg("no checkpoint " + std::to_string(k.value) + " (the recording has " +
                      std::to_string(impl_->checkpoints) + ")");
  impl_->save_place();
  Result<TimelineStop> st = impl_->to_checkpoint(k.value);
  if (!st.ok()) {
    impl_->recover();
    return st;
  }
  impl_->last = *st;
  return st;
}

Result<TimelineStop> Timeline::goto_moment(const Moment& m_in) {
  Moment m = m_in;
  if (m.checkpoint >= impl_->checkpoints)
    return Error::msg("no checkpoint " + std::to_string(m.checkpoint) + " (the recording has " +
                      std::to_string(impl_->checkpoints) + ")");
  if (m.pc == 0 && m.event == 0) return goto_checkpoint(CheckpointId(m.checkpoint));  // "K" alone
  impl_->save_place();
  Status st = impl_->reach_base(Base::at(m), std::nullopt);
  if (st.ok()) st = impl_->set_traps(impl_->user);
  if (!st.ok()) {
    impl_->recover();
    return st.take_error();
  }
  impl_->path = Path{Base::at(m), {}};
  impl_->known = m;
  impl_->trace_base.reset();
  impl_->companions_out();
  TimelineStop stop;
  stop.cause = StopCause::Step;
  stop.pc = impl_->pc_now();
  impl_->last = stop;
  return stop;
}

Result<TimelineStop> Timeline::resume(Direction direction, Motion motion) {
  Impl& t = *impl_;
  Result<TimelineStop> st = Error::msg("");
  t.save_place();
  // An interrupt may also cut a run deep inside a long segment (timeline_cut.cc).
  MoveCut cut(t.options.interrupted, t.options.interrupt_fd);
  const uint64_t start_segment = t.segment;
  if (direction == Direction::Backward) {
    st = motion == Motion::Continue ? t.reverse_continue() : t.reverse_step();
  } else {
    t.set_companions({});  // a forward move needs none: no stubs for them at every stop
    const Path before = t.path;
    const std::optional<Moment> known_before = t.known;
    const bool was_exit = t.at_exit, was_end = t.at_end;
    t.interruptible = true;
    st = t.forward(motion);
    t.interruptible = false;
    if (st.ok() && !was_exit && !was_end && !cut.fired()) {
      t.trace_base.reset();
      if (st->cause == StopCause::Exited && st->pc == 0) {
        // Killed by a signal: the process is gone; stay at the signal's stop.
        Status back = t.reach(before, std::nullopt);
        if (!back.ok()) {
          t.recover();
          return back.take_error();
        }
        t.path = before;
        t.known = known_before;
        t.at_exit = true;
        t.exit_signo = st->signo;
        st->pc = t.pc_now();
      } else if (st->cause == StopCause::Breakpoint && t.bp_valid.count(st->pc)) {
        t.known = Moment{t.segment, t.cursor, st->pc, t.bp_count[st->pc]};
        t.path = Path{Base::at(*t.known), {}};
      } else if (st->cause == StopCause::Exited && t.at_exit && t.at_syscall_instruction()) {
        // Paused before the logged exit: every arrival at a `syscall` is an
        // event, so this is the pc's first arrival since the latest one.
        t.known = Moment{t.segment, t.cursor, st->pc, 1};
        t.path = Path{Base::at(*t.known), {}};
      } else if (st->cause == StopCause::Exec) {
        // The exec checkpoint's start: an exact moment.
        t.known = Moment{t.segment, 0, st->pc, 1};
        t.path = Path{Base::after(t.segment, 0), {}};
      } else if (st->cause == StopCause::Interrupted) {
        t.known.reset();
        t.path = Path{Base::after(t.segment, t.cursor), {}};
        if (Status out = t.leave_sysbuf_stub(*st); !out.ok()) st = out.take_error();
      } else {
        t.known.reset();
        t.path.push(Leg{motion, 1, t.user});
      }
    }
  }
  if (cut.disarm_and_check()) st = t.land_after_cut(direction, start_segment);
  if (!st.ok()) {
    t.recover();
    return st;
  }
  t.last = *st;
  t.companions_out();
  return st;
}

Status Timeline::add_breakpoint(uint64_t addr) {
  impl_->user.breakpoints.insert(addr);
  Status st = impl_->set_traps(impl_->user);
  if (!st.ok()) {
    impl_->user.breakpoints.erase(addr);
    (void)impl_->set_traps(impl_->user);
  }
  return st;
}

Status Timeline::remove_breakpoint(uint64_t addr) {
  if (!impl_->user.breakpoints.erase(addr)) return Error::msg("no breakpoint at " + Moment{0, 0, addr, 1}.to_string().substr(4));
  return impl_->set_traps(impl_->user);
}

Status Timeline::add_watchpoint(WatchKind kind, uint64_t addr, uint64_t len) {
  if (len != 1 && len != 2 && len != 4 && len != 8)
    return Error::msg("watchpoint length " + std::to_string(len) + ": must be 1, 2, 4 or 8");
  if (addr % len != 0) return Error::msg("watchpoint address must be aligned to its length " + std::to_string(len));
  const Watch w{kind, addr, len};
  for (const Watch& x : impl_->user.watches)
    if (x == w) return ok_status();
  if (impl_->user.watches.size() >= 2)
    return Error::msg("at most 2 watchpoints at once (the debug registers are shared with navigation)");
  impl_->user.watches.push_back(w);
  Status st = impl_->set_traps(impl_->user);
  if (!st.ok()) {
    impl_->user.watches.pop_back();
    (void)impl_->set_traps(impl_->user);
  }
  return st;
}

Status Timeline::remove_watchpoint(WatchKind kind, uint64_t addr, uint64_t len) {
  auto& ws = impl_->user.watches;
  auto it = std::find(ws.begin(), ws.end(), Watch{kind, addr, len});
  if (it == ws.end()) return Error::msg("no such watchpoint");
  ws.erase(it);
  return impl_->set_traps(impl_->user);
}

Tid Timeline::thread() const { return impl_->recorded_tid; }
pid_t Timeline::recorded_pid() const { return impl_->pid; }

Result<user_regs_struct> Timeline::regs() {
  user_regs_struct r = TRY(impl_->session->task().regs());
  // RF is an artifact of how this moment was reached (a debug-register hit
  // sets it); the program's state is the same either way.
  r.eflags &= ~process::kEflagsRf;
  return r;
}
Result<std::vector<uint8_t>> Timeline::xsave() { return impl_->session->task().xsave(); }

Result<size_t> Timeline::read_memory(uint64_t addr, std::span<uint8_t> out) {
  process::Task& task = impl_->session->task();
  size_t done = 0;
  while (done < out.size()) {
    const uint64_t a = addr + done;
    const size_t chunk = std::min<uint64_t>(out.size() - done, kPageSize - (a % kPageSize));
    Status st = task.read_memory(RemoteAddr(a), out.subspan(done, chunk));
    if (!st.ok()) {
      if (done == 0) return st.take_error();
      break;
    }
    impl_->hide_traps(a, out.subspan(done, chunk));
    done += chunk;
  }
  return done;
}

const store::RecordingReader& Timeline::recording() const { return impl_->reader; }

Timeline::Stats Timeline::stats() const {
  Stats s;
  if (impl_->snapshots) {
    s.restores = impl_->snapshots->restores();
    s.snapshot_forks = impl_->snapshots->forks();
    s.snapshots = impl_->snapshots->size();
  }
  s.segments_replayed = impl_->segments_replayed;
  s.segments_skipped = impl_->segments_skipped;
  s.probe_traps = impl_->probe_traps;
  s.watch_traps = impl_->watch_traps;
  s.checkpoint_debug_exceptions = ConditionalBreakpoint::closed_debug_exceptions();
  if (impl_->moments) {
    s.moment_snapshots_taken = impl_->moments->taken();
    s.moment_snapshots_used = impl_->moments->used();
  }
  return s;
}

}  // namespace slsdbg::replay
