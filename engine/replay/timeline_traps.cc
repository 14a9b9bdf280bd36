// The Timeline's traps inside a replay run: software breakpoints (int3,
// hidden from reads and checkpoint comparisons), debug registers claimed
// from the session's owner (watchpoints and counting probes,
// debug_registers.h), single steps, and the pauses they cause.
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/log.h"
#include "engine/replay/timeline_impl.h"
#include "process/x86_insn.h"

namespace slsdbg::replay {

namespace {

#ifndef TRAP_HWBKPT
constexpr int TRAP_HWBKPT = 4;
#endif
constexpr unsigned long kDr6Step = 0x4000;

DrKind dr_kind(WatchKind kind) { return kind == WatchKind::Write ? DrKind::Write : DrKind::Access; }  // x86 has no read-only

}  // namespace

void Path::push(const Leg& leg) {
  if (!legs.empty() && legs.back().motion == leg.motion && legs.back().traps == leg.traps) {
    legs.back().count += leg.count;
    return;
  }
  legs.push_back(leg);
}

void Timeline::Impl::reset_counts() {
  bp_count.clear();
  bp_valid.clear();
  for (const auto& [addr, orig] : inserted) bp_valid.insert(addr);
  for (uint64_t addr : counted_bps) bp_valid.insert(addr);
  count_value = 0;
  target_count = 0;
  for (auto& [pc, c] : counters) (void)c.set_count(session->task(), 0);
  // Counted from this window's start (where they can be placed).
  companion_count.clear();
  companion_valid.clear();
  for (uint64_t pc : companions)
    if (!counter_refused.count(pc)) companion_valid.insert(pc);
}

Status Timeline::Impl::apply_debug_registers() {
  DebugRegisters& d = dregs();
  for (int i = 0; i < DebugRegisters::kSlots; i++)
    if (ours(d.slot(i).use)) d.set_enabled(i, true);
  return d.apply(session->task().raw_tid());
}

// Claims debug registers for the active watchpoints and the probes the
// tracee does not count, at most kTimelineSlots of them.
Status Timeline::Impl::assign_slots() {
  DebugRegisters& d = dregs();
  for (DrUse u : {DrUse::Watch, DrUse::CountProbe, DrUse::TargetProbe}) d.release_all(u);
  // A probe whose pc the tracee counts needs no debug register.
  const auto counted = [&](uint64_t pc) { return counters.count(pc) > 0; };
  const bool count_probe = count_pc && !counted(*count_pc);
  const bool target_probe = target && !counted(target->pc);
  const size_t want = active.watches.size() + count_probe + target_probe;
  if (want > kTimelineSlots)
    return Error::msg("too many hardware traps at once: " + std::to_string(active.watches.size()) + " watchpoints" +
                      (count_probe ? " + the counting probe" : "") + (target_probe ? " + the target probe" : "") +
                      " need " + std::to_string(want) + " debug registers; navigation has " +
                      std::to_string(kTimelineSlots) + " (the fourth is the checkpoint's breakpoint)");
  for (const Watch& w : active.watches)
    (void)TRY_CTX(d.claim(DrUse::Watch, w.addr, dr_kind(w.kind), w.len), "a watchpoint");
  if (count_probe) (void)TRY_CTX(d.claim(DrUse::CountProbe, *count_pc, DrKind::Execute, 1), "the counting probe");
  if (target_probe) (void)TRY_CTX(d.claim(DrUse::TargetProbe, target->pc, DrKind::Execute, 1), "the target probe");
  return ok_status();
}

// A breakpoint whose address is not mapped yet (a shared library's code at
// the program's start) stays pending and is inserted when an address-space
// syscall may have mapped it.
Status Timeline::Impl::insert_breakpoint_bytes() {
  process::Task& task = session->task();
  for (uint64_t addr : active.breakpoints) {
    if (inserted.count(addr)) continue;
    uint8_t orig = 0;
    if (!task.read_memory(RemoteAddr(addr), {&orig, 1}).ok()) continue;  // pending
    const uint8_t int3 = 0xcc;
    if (!task.write_memory(RemoteAddr(addr), {&int3, 1}).ok()) continue;
    SLSDBG_DEBUG("timeline", "breakpoint 0x%llx inserted in %d (was %02x)", (unsigned long long)addr, task.raw_tid(), orig);
    inserted[addr] = orig;
  }
  return ok_status();
}

// After the address space changed: a breakpoint whose page was replaced
// (MAP_FIXED over it) or unmapped lost its int3; pending ones may be mapped.
void Timeline::Impl::refresh_breakpoints() {
  process::Task& task = session->task();
  for (auto it = inserted.begin(); it != inserted.end();) {
    uint8_t now = 0;
    if (!task.read_memory(RemoteAddr(it->first), {&now, 1}).ok()) {
      it = inserted.erase(it);  // pending again
      continue;
    }
    if (now != 0xcc) {
      it->second = now;
      const uint8_t int3 = 0xcc;
      (void)task.write_memory(RemoteAddr(it->first), {&int3, 1});
    }
    ++it;
  }
  (void)insert_breakpoint_bytes();
}

Status Timeline::Impl::set_traps(const TrapSet& traps) {
  process::Task& task = session->task();
  for (auto it = inserted.begin(); it != inserted.end();) {
    if (traps.breakpoints.count(it->first)) {
      ++it;
      continue;
    }
    TRY(task.write_memory(RemoteAddr(it->first), {&it->second, 1}));
    bp_valid.erase(it->first);
    it = inserted.erase(it);
  }
  active = traps;
  TRY(insert_breakpoint_bytes());
  TRY(assign_slots());
  return apply_debug_registers();
}

Status Timeline::Impl::set_count_probe(std::optional<uint64_t> pc) {
  TRY(drop_counter());
  count_pc = pc;
  count_value = 0;
  TRY(assign_slots());
  return apply_debug_registers();
}

Status Timeline::Impl::set_target_probe(std::optional<Moment> t) {
  TRY(drop_counter());
  target = t;
  target_count = 0;
  TRY(assign_slots());
  return apply_debug_registers();
}

// The current instruction is about to run and no trap has counted it.
// Returns whether that arrival is the target probe's.
bool Timeline::Impl::count_landing(bool instruction_next) {
  if (!instruction_next) return false;
  const uint64_t pc = pc_now();
  if (inserted.count(pc)) bp_count[pc]++;
  if (counted_bps.count(pc)) {  // counts toward the moment, not a hit
    bp_count[pc]++;
    landed_bp = pc;
  }
  if (count_pc && *count_pc == pc) count_value++;
  if (companions.count(pc)) companion_count[pc]++;
  if (target && target->pc == pc) {
    target_count++;
    return cursor == target->event && target_count == target->n;
  }
  return false;
}

void Timeline::Impl::end_step() {
  if (!stepping) return;
  stepping = false;
  if (stepping_syscall) {
    stepping_syscall = false;
    auto r = session->task().regs();
    if (r.ok() && (r->r11 & 0x100)) {
      r->r11 &= ~0x100ull;
      (void)session->task().set_regs(*r);
    }
  }
  if (lifted_bp) {
    const uint8_t int3 = 0xcc;
    (void)session->task().write_memory(RemoteAddr(*lifted_bp), {&int3, 1});
    lifted_bp.reset();
  }
  (void)apply_debug_registers();
}

// Prepares a pause here; in a collecting scan records user-visible stops and
// goes on exactly as a resumed pause would.
RunObserver::Verdict Timeline::Impl::stop_here(PauseWhy w, bool instruction_next) {
  end_step();
  if (Status st = fold_counter(); !st.ok())
    SLSDBG_DEBUG("timeline", "reading the counter stub: %s", st.error().message.c_str());
  const bool reached = count_landing(instruction_next);
  step_over_pending = true;
  const bool user_visible = w == PauseWhy::Breakpoint || w == PauseWhy::Watchpoint || w == PauseWhy::Signal;
  if (collect && user_visible) {
    Hit h;
    h.ordinal = ordinal++;
    h.why = w;
    h.pc = pc_now();
    h.watch = why_watch;
    if (w == PauseWhy::Breakpoint && bp_valid.count(h.pc)) h.moment = Moment{segment, cursor, h.pc, bp_count[h.pc]};
    hits.push_back(h);
    if (reached) {
      why = PauseWhy::Target;
      return Verdict::Pause;
    }
    if (hits.size() >= collect_cap) {
      why = PauseWhy::Capped;
      return Verdict::Pause;
    }
    return Verdict::Resume;
  }
  why = w;
  return Verdict::Pause;
}

// A scan from a checkpoint whose pc holds a user breakpoint (one taken at a
// syscall's exit stop, before the instruction there runs): fresh() counted
// that landing as arrival 1, Moment{k, 0, pc, 1}, where a forward Continue
// crossing into the checkpoint stops. The scan's resumption steps over it,
// so it is collected here as the segment's first hit, unless it is the
// moment the scan ends at (a hit before it only). It takes no ordinal: a
// Continue from the checkpoint steps over it too, its first stop is the next.
void Timeline::Impl::collect_landing_hit(uint64_t pc) {
  if (why == PauseWhy::Target || cursor != 0 || !inserted.count(pc) || pc_now() != pc || same_as_next(segment))
    return;
  Hit h;
  h.landing = true;
  h.pc = pc;
  if (bp_valid.count(pc)) h.moment = Moment{segment, 0, pc, std::max<uint64_t>(bp_count[pc], 1)};
  hits.push_back(h);
}

// Checkpoint k+1 taken at the same stop as k (segment k ran nothing: no
// event, no page dirtied, the same registers; two ticks while the tracee
// stood still): one point, which belongs to the later segment.
bool Timeline::Impl::same_as_next(uint64_t k) const {
  const auto& cps = reader.checkpoints();
  if (k + 1 >= cps.size() || cps[k].segment_events != 0 || cps[k + 1].dirty_pages != 0) return false;
  auto a = reader.process_state(CheckpointId(k));
  auto b = reader.process_state(CheckpointId(k + 1));
  if (!a.ok() || !b.ok() || a->threads.empty() || b->threads.empty()) return false;
  return std::memcmp(&a->threads[0].regs, &b->threads[0].regs, sizeof(user_regs_struct)) == 0;
}

// A patched breakpoint is invisible as long as nothing steps through it or
// watches with a debug register (a watchpoint could fire inside the
// trampoline), and no int3 of ours lies in the bytes it moves.
bool Timeline::Impl::allows_code_change(uint64_t begin, uint64_t end, bool reads_memory) {
  settle_step_over();
  // A step over a counter stub's counted arrival is a plain continue from
  // the stub's copy (resume()), and the session's copies start there too
  // (copy_start_pc): kept out, the patch missed the only resumption of a
  // run from a checkpoint standing at a counted pc, and the checkpoint
  // then cost a #DB per visit of its pc.
  const bool step_over_stub = step_over_pending && counted_stub_arrival(pc_now());
  if (pause_at_syscall_exit != PauseWhy::None || (step_over_pending && !step_over_stub) || stepping || lifted_bp ||
      motion == Motion::Step)
    return false;
  // Write watchpoints only: the trampoline reads the program's memory. A
  // moved write that a watchpoint catches in the trampoline is shown at the
  // program's pc (segment_run_traps.cc), and the session puts the debug
  // registers into the copies it goes on from. A probe's execute
  // breakpoint would miss its pc's copy among the moved bytes; elsewhere
  // it fires as before.
  for (int i = 0; i < DebugRegisters::kSlots; i++) {
    const DrSlot& slot = dregs().slot(i);
    if (!ours(slot.use)) continue;
    if (slot.use == DrUse::Watch && slot.kind != DrKind::Write && reads_memory) return false;
    if (slot.use != DrUse::Watch && slot.addr >= begin && slot.addr < end) return false;
  }
  std::vector<uint64_t> in_the_way;  // companions give way to the checkpoint's patch
  for (const auto& [pc, c] : counters)
    if (begin < c.anchor() + c.length() && c.anchor() < end) {
      if (!companion_only(pc)) return false;
      in_the_way.push_back(pc);
    }
  if (inserted.lower_bound(begin) != inserted.lower_bound(end)) return false;
  for (uint64_t pc : in_the_way)
    if (!evict_companion(pc, "in the way of the checkpoint's patch").ok()) return false;
  // A count's stub leaves with its copy's place taken: nothing of it stays.
  if (reads_memory) session_patch = {begin, end};
  return true;
}

uint64_t Timeline::Impl::pc_now() {
  auto r = session->task().regs();
  return r.ok() ? r->rip : 0;
}

bool Timeline::Impl::at_syscall_instruction() {
  uint8_t insn[2] = {0, 0};
  const uint64_t pc = pc_now();
  if (pc == 0 || !session->task().read_memory(RemoteAddr(pc), {insn, 2}).ok()) return false;
  hide_traps(pc, {insn, 2});
  return process::is_syscall_insn(insn);
}

// Whether the instruction at pc would trap again at once on a plain resume:
// an int3 of ours, or an execution probe in a debug register.
// The counter stub's pc counts too: a pause there has counted its arrival.
bool Timeline::Impl::trap_at(uint64_t pc) const {
  return inserted.count(pc) || probe_at(pc) || counters.count(pc);
}

// An execution probe (count or target) in a debug register at pc.
bool Timeline::Impl::probe_at(uint64_t pc) const {
  DebugRegisters& d = session->debug_registers();
  return d.find(DrUse::CountProbe, pc) >= 0 || d.find(DrUse::TargetProbe, pc) >= 0;
}

// After a pause, the instruction at pc is stepped over only when a trap of
// ours sits on it. A watchpoint fires after the write, so most pauses
// (every stop of a watchpoint scan) resume with a plain continue: a step
// would cost a second trap and the debug registers rewritten twice. Decided
// before the session asks allows_patch() for the same resumption, so both
// agree on whether it steps.
void Timeline::Impl::settle_step_over() {
  if (step_over_pending && motion != Motion::Step && !stepping && !trap_at(pc_now())) step_over_pending = false;
}

// The tracee stands at a counter stub's pc whose arrival is counted
// already (a limit reached, a probe's trap, a restore there): resume() runs
// the instructions at pc from the stub's copy, past the counter.
bool Timeline::Impl::counted_stub_arrival(uint64_t pc) const {
  if (stepping || motion == Motion::Step || inserted.count(pc) || probe_at(pc) || !counters.count(pc)) return false;
  return step_over_pending || (probe_counted_at && *probe_counted_at == pc);
}

uint64_t Timeline::Impl::copy_start_pc(uint64_t rip) {
  settle_step_over();
  auto c = counters.find(rip);
  if (c == counters.end() || stepping || motion == Motion::Step) return rip;
  if (counted_stub_arrival(rip)) return c->second.displaced_addr();
  if (c->second.anchored() && !step_over_pending) return c->second.entry_addr();  // pc's bytes hold the jump
  return rip;
}

void Timeline::Impl::copy_took_over() {
  step_over_pending = false;
  probe_counted_at.reset();
}

Status Timeline::Impl::resume(process::Task& task, int signo) {
  if (pause_at_syscall_exit != PauseWhy::None) return task.syscall(signo);
  TRY(place_counter(task));
  // A probe counted this arrival and a stub now sits on its pc (placed
  // since: the tracee stood in the stub's moved bytes before): run past it.
  if (probe_counted_at && *probe_counted_at == pc_now() && counters.count(pc_now()) && motion != Motion::Step &&
      !stepping)
    step_over_pending = true;
  probe_counted_at.reset();
  settle_step_over();
  if (auto c = counters.find(pc_now());
      c != counters.end() && step_over_pending && motion != Motion::Step && !stepping) {
    // This arrival is counted: run the instructions at pc from the stub's
    // copy, past the counter.
    step_over_pending = false;
    user_regs_struct r = TRY(task.regs());
    r.rip = c->second.displaced_addr();
    TRY(task.set_regs(r));
    return task.cont(signo);
  }
  if (auto c = counters.find(pc_now()); c != counters.end() && c->second.anchored() && !stepping &&
                                        !step_over_pending && motion != Motion::Step) {
    // pc's bytes hold the anchor's jump: count this arrival in the stub.
    user_regs_struct r = TRY(task.regs());
    r.rip = c->second.entry_addr();
    TRY(task.set_regs(r));
    return task.cont(signo);
  }
  if (step_over_pending || (motion == Motion::Step && !stepping)) {
    step_over_pending = false;
    const uint64_t pc = pc_now();
    auto it = inserted.find(pc);
    if (it != inserted.end()) {
      TRY(task.write_memory(RemoteAddr(pc), {&it->second, 1}));
      lifted_bp = pc;
    }
    if (probe_at(pc)) {
      // The probe at pc is lifted for this step; end_step() puts it back.
      DebugRegisters& d = dregs();
      for (int i = 0; i < DebugRegisters::kSlots; i++)
        if ((d.slot(i).use == DrUse::CountProbe || d.slot(i).use == DrUse::TargetProbe) && d.slot(i).addr == pc)
          d.set_enabled(i, false);
      TRY(d.apply(task.raw_tid()));
    }
    // A `syscall` stepped with TF set saves TF in r11 (rflags); fixed when
    // the step completes, or the state would differ from the recording.
    uint8_t code[2] = {0, 0};
    stepping_syscall = task.read_memory(RemoteAddr(pc), {code, 2}).ok() && process::is_syscall_insn(code);
    stepping = true;
    return task.singlestep(signo);
  }
  if (stepping) return task.singlestep(signo);
  return task.cont(signo);
}

Result<RunObserver::Verdict> Timeline::Impl::on_trap(process::Task& task, const siginfo_t& si) {
  user_regs_struct r = TRY(task.regs());
  const pid_t tid = task.raw_tid();
  const CountingPatch* limit_hit = nullptr;
  for (const auto& [pc, c] : counters)
    if (si.si_code == SI_KERNEL && r.rip == c.reached_rip()) limit_hit = &c;
  if (limit_hit) {
    // A counter stub reached its limit: the target's arrival at its pc.
    r.rip = limit_hit->pc();
    TRY(fold_counter());
    TRY(task.set_regs(r));
    step_over_pending = true;  // counted; resuming runs the stub's copy
    if (target && cursor == target->event && target_count == target->n) return stop_here(PauseWhy::Target, false);
    return Verdict::Resume;
  }
  if (si.si_code == SI_KERNEL) {  // int3
    const uint64_t addr = r.rip - 1;
    if (!inserted.count(addr)) return Verdict::NotMine;
    r.rip = addr;
    TRY(task.set_regs(r));
    bp_count[addr]++;
    step_over_pending = true;  // the original instruction still has to run
    if (!stop_at_user) return Verdict::Resume;
    return stop_here(PauseWhy::Breakpoint, false);
  }
  bool step_done = false;
  bool watch_hit = false;
  bool reached = false;
  // DR6 tells which debug registers fired; a single step in the same #DB
  // makes the si_code TRAP_TRACE, so look at it for every trap.
  unsigned long dr6 = TRY(DebugRegisters::take_dr6(tid));
  const DebugRegisters& d = dregs();
  // A watched write's trap and an execute breakpoint on the next instruction
  // may come in one #DB (both DR6 bits, RF set: some hosts do this, others
  // report the breakpoint on resuming). Count the arrival when it runs, as
  // the second kind of host does: the execute bit is dropped here and RF
  // cleared so that it fires on resuming (crash_uaf's reverse watchpoint
  // had its moment counted twice: "lost the way back").
  bool data_hit = false;
  for (int i = 0; i < DebugRegisters::kSlots; i++)
    if ((dr6 & (1ul << i)) && d.slot(i).kind != DrKind::Execute) data_hit = true;
  for (int i = 0; data_hit && i < DebugRegisters::kSlots; i++) {
    if (!(dr6 & (1ul << i)) || d.slot(i).kind != DrKind::Execute || d.slot(i).addr != r.rip) continue;
    dr6 &= ~(1ul << i);
    if (r.eflags & process::kEflagsRf) {
      r.eflags &= ~process::kEflagsRf;
      TRY(task.set_regs(r));
    }
  }
  bool mine = false;
  for (int i = 0; i < DebugRegisters::kSlots; i++) {
    const DrSlot& slot = d.slot(i);
    if (!(dr6 & (1ul << i)) || !ours(slot.use)) continue;
    mine = true;
    switch (slot.use) {
      case DrUse::Watch:
        watch_hit = true;
        watch_traps++;
        for (const Watch& w : active.watches)
          if (w.addr == slot.addr && w.len == slot.len && dr_kind(w.kind) == slot.kind) why_watch = w;
        break;
      case DrUse::CountProbe:
        count_value++;
        probe_traps++;
        probe_counted_at = r.rip;
        break;
      case DrUse::TargetProbe:
        probe_traps++;
        target_count++;
        probe_counted_at = r.rip;
        if (target && cursor == target->event && target_count == target->n) reached = true;
        break;
      default: break;
    }
  }
  if (stepping && (si.si_code != TRAP_HWBKPT || (dr6 & kDr6Step))) step_done = true;
  if (!mine && !step_done) {
    if (si.si_code == TRAP_TRACE) return Verdict::Resume;
    return Verdict::NotMine;
  }
  if (reached) return stop_here(PauseWhy::Target, false);
  if (watch_hit && !counters.empty()) {
    // The stub ran a moved instruction that accessed watched bytes: this
    // stop has no pc of the program (timeline_counting.cc).
    for (const auto& [pc, c] : counters)
      if (c.in_stub(r.rip))
        return Error::msg("a watchpoint fired in the counter stub of " + hex_addr(pc) + " (a watched access next to it)");
  }
  if (watch_hit && stop_at_user) {
    if (step_done) end_step();
    return stop_here(PauseWhy::Watchpoint, true);
  }
  if (step_done) {
    if (motion == Motion::Step) return stop_here(PauseWhy::Step, true);
    // An internal step over the previous pause's instruction: put the traps
    // back and go on (the landing's traps fire when it runs).
    end_step();
  }
  return Verdict::Resume;
}

Result<RunObserver::Verdict> Timeline::Impl::on_event_done(process::Task& task, uint64_t index, const store::Event& ev) {
  TRY(fold_counter());
  close_window();
  cursor = index + 1;
  count_at_event = count_value;
  const bool maps_changed = ev.kind == store::EventKind::Syscall &&
                            (ev.syscall_no == SYS_mmap || ev.syscall_no == SYS_munmap || ev.syscall_no == SYS_mprotect ||
                             ev.syscall_no == SYS_mremap || ev.syscall_no == SYS_brk);
  if (!active.breakpoints.empty() && maps_changed) refresh_breakpoints();
  // A mapping placed over a counter's pc (ld.so maps a library twice) took
  // its jump away: placed again at the next resumption.
  if (!counters.empty() && maps_changed)
    for (auto it = counters.begin(); it != counters.end();) {
      if (it->second.intact(task)) {
        ++it;
        continue;
      }
      it->second.discard(task);
      it = counters.erase(it);
    }
  reset_counts();
  const bool instruction_next = ev.kind != store::EventKind::Signal;
  if (target && cursor > target->event) {
    why = PauseWhy::TargetMissed;
    return Verdict::Pause;
  }
  const process::WaitResult& last_stop = task.last_stop();
  if (stepping && stepping_syscall) {
    // The stepped `syscall` saved TF in r11: clear it before anything
    // compares registers (checkpoint k+1 may be right after it).
    stepping_syscall = false;
    auto r = task.regs();
    if (r.ok() && (r->r11 & 0x100)) {
      r->r11 &= ~0x100ull;
      TRY(task.set_regs(*r));
    }
    // Run for real (PTRACE_SYSCALL ended the single step): at its exit stop
    // the instruction is done.
    if (last_stop.kind == process::StopKind::SyscallStop) {
      if (motion == Motion::Step && !(pause_after_event && *pause_after_event == cursor))
        return stop_here(PauseWhy::Step, true);
      end_step();
    }
  }
  PauseWhy want = PauseWhy::None;
  // Debug registers do not see the kernel's (here: the log's) writes into
  // the process: a syscall that wrote watched bytes is a watchpoint stop,
  // right after the syscall.
  if (stop_at_user && ev.kind == store::EventKind::Syscall)
    for (const Watch& w : active.watches)
      if (w.kind != WatchKind::Read)
        for (const store::MemoryWrite& mw : ev.writes)
          if (mw.addr < w.addr + w.len && w.addr < mw.addr + mw.bytes.size()) {
            want = PauseWhy::Watchpoint;
            why_watch = w;
          }
  if (want == PauseWhy::None && pause_after_event && *pause_after_event == cursor) want = PauseWhy::EventDone;
  if (want == PauseWhy::None && interruptible && options.interrupted && options.interrupted())
    want = PauseWhy::Interrupted;
  if (want == PauseWhy::None) return Verdict::Resume;
  if (last_stop.kind == process::StopKind::PtraceEvent && last_stop.event == PTRACE_EVENT_SECCOMP) {
    pause_at_syscall_exit = want;
    return Verdict::Resume;
  }
  return stop_here(want, instruction_next);
}

RunObserver::Verdict Timeline::Impl::on_syscall_exit(process::Task&) {
  if (pause_at_syscall_exit == PauseWhy::None) return Verdict::Resume;
  const PauseWhy w = pause_at_syscall_exit;
  pause_at_syscall_exit = PauseWhy::None;
  return stop_here(w, true);
}

RunObserver::Verdict Timeline::Impl::before_signal(process::Task&, int signo) {
  if (!pause_signals) return Verdict::Resume;
  why_signo = signo;
  return stop_here(PauseWhy::Signal, false);
}

RunObserver::Verdict Timeline::Impl::before_exit(process::Task& task, const store::Event& exit_event) {
  // Shown as "about to execute the exit syscall" (the recorder's rewind).
  auto r = task.regs();
  if (r.ok()) {
    r->rip -= 2;
    r->rax = r->orig_rax;
    (void)task.set_regs(*r);
  }
  exit_status = exit_event.exit_status;
  exit_signo = exit_event.signo;
  return stop_here(PauseWhy::Exit, false);
}

void Timeline::Impl::hide_traps(uint64_t addr, std::span<uint8_t> bytes) {
  for (auto it = inserted.lower_bound(addr); it != inserted.end() && it->first < addr + bytes.size(); ++it)
    bytes[it->first - addr] = it->second;
  for (const auto& [pc, c] : counters) c.hide(addr, bytes);
}

}  // namespace slsdbg::replay
