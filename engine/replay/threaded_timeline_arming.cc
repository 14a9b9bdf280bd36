// What a threaded run arms and when: the client's int3s, counter stubs
// instead of them, watches in every thread's debug registers.
#include "engine/replay/threaded_timeline_impl.h"

namespace slsdbg::replay {

bool ThreadedTimeline::Impl::counting_turned_off() {
  static const bool off = [] {
    const char* v = std::getenv("SLSDBG_REPLAY_COUNT");
    return v && std::string(v) == "trap";
  }();
  return off;
}

bool ThreadedTimeline::Impl::counters_fit(Mode m) const {
  if (counting_turned_off() || counters_refused) return false;
  // A window's collection arms no watch before its start (watches armed late, below).
  if (m == Mode::Collect && window_from) return true;
  // Beside watches of any kind: one that fires in a stub's copy of a
  // moved access (a store, or a load for a read or access watch) is moved
  // to the program's code (trapped_here). A collection orders its hits by
  // trap, which counted arrivals do not have: no stubs beside watches there.
  if (m == Mode::Seek || m == Mode::Locate) return true;
  if (!user_watches.empty() || target.watch) return false;
  // With steps after the target's arrival: the stubs come out at that
  // arrival (anchor_reached) and the steps' hits are traps after them all.
  if (m != Mode::Collect || catching) return false;
  // The target (where the client stands) need not be a breakpoint: a
  // deleted one's arrival, the end of a forward continue. Its arrivals
  // are then no hits (collect asks last_arrival for breakpoints only).
  return target.end || (target.n > 0 && target.resume_m == 0 && !target.event);
}

bool ThreadedTimeline::Impl::counts_target_only(Mode m) const {
  if (counting_turned_off() || counters_refused || m != Mode::Collect || catching) return false;
  return target.n > 0 && !target.watch && target.steps.empty() && target.resume_m == 0 && !target.event &&
         !target.end && !user_bps.count(target.pc);
}

Status ThreadedTimeline::Impl::arm_late_watches() {
  if (!watches_late || late_armed) return ok_status();
  late_armed = true;
  return armed.empty() ? ok_status() : arm_watches_everywhere();
}

std::set<uint64_t> ThreadedTimeline::Impl::wanted() const {
  std::set<uint64_t> w = user_bps;
  if (mode == Mode::Measure) return {};  // it goes by single steps
  if (mode != Mode::Live && target.n > 0 && !target.watch) w.insert(target.pc);
  if (mode == Mode::Locate || mode == Mode::Seek) w.insert(also_counted.begin(), also_counted.end());
  if (mode == Mode::Collect && window_from) {
    w.insert(window_from->pc);
    w.insert(window_pcs.begin(), window_pcs.end());
  }
  return w;
}

std::vector<WatchRange> ThreadedTimeline::Impl::watch_set() const {
  std::vector<WatchRange> w(user_watches.begin(), user_watches.end());
  if (mode != Mode::Live && target.watch && !user_watches.count(*target.watch)) w.push_back(*target.watch);
  return w;
}

Status ThreadedTimeline::Impl::arm_watches_everywhere() {
  for (SegmentThread& t : live) TRY(arm_thread_watches(t.task->raw_tid(), armed));
  return ok_status();
}

unsigned ThreadedTimeline::Impl::slot_bit(const WatchRange& w) const {
  for (size_t i = 0; i < armed.size(); i++)
    if (armed[i] == w) return 1u << i;
  return 0;
}

process::Task* ThreadedTimeline::Impl::any_task() {
  for (SegmentThread& t : live)
    if (t.task) return t.task;
  return nullptr;
}

Status ThreadedTimeline::Impl::insert_at(uint64_t addr) {
  if (inserted.count(addr)) return ok_status();
  process::Task* t = any_task();
  if (!t) return Error::msg("no live thread");
  uint8_t orig = 0;
  TRY(t->read_memory(RemoteAddr(addr), {&orig, 1}));
  TRY(t->write_memory(RemoteAddr(addr), {&kInt3, 1}));
  inserted[addr] = orig;
  return ok_status();
}

void ThreadedTimeline::Impl::refresh_breakpoints() {
  for (auto it = pending.begin(); it != pending.end();)
    it = insert_at(*it).ok() ? pending.erase(it) : std::next(it);
  process::Task* t = any_task();
  if (!t) return;
  for (auto it = inserted.begin(); it != inserted.end();) {
    uint8_t now = 0;
    if (!t->read_memory(RemoteAddr(it->first), {&now, 1}).ok()) {
      pending.insert(it->first);  // unmapped again
      it = inserted.erase(it);
      continue;
    }
    if (now != kInt3) {
      SLSDBG_DEBUG("replay", "segment %llu: breakpoint at 0x%llx replaced by a mapping; in again", (unsigned long long)k,
                   (unsigned long long)it->first);
      it->second = now;
      (void)t->write_memory(RemoteAddr(it->first), {&kInt3, 1});
    }
    ++it;
  }
}

Status ThreadedTimeline::Impl::remove_at(uint64_t addr) {
  auto it = inserted.find(addr);
  if (it == inserted.end()) return ok_status();
  process::Task* t = any_task();
  if (t) TRY(t->write_memory(RemoteAddr(addr), {&it->second, 1}));
  inserted.erase(it);
  return ok_status();
}

Tid ThreadedTimeline::Impl::running_thread_of(uint64_t seg) {
  auto st = reader.process_state(CheckpointId(seg));
  if (st.ok() && st->running_tid) return Tid(st->running_tid);
  return live.empty() ? Tid{} : live.front().recorded;
}

bool ThreadedTimeline::Impl::allows_patch(uint64_t begin, uint64_t end) {
  // The counter stubs stay through the last stretch to the checkpoint
  // (an int3 there would take the patch out), unless the jump would
  // overwrite one.
  if (counters.overlaps(begin, end)) return false;
  if (mode == Mode::Measure || step_tid) return false;
  // Read and access watches too: the trampoline reads no program memory
  // but the words a refitted patch compares, which keep clear of them
  // (reads_watched). Before, any read watch kept the patch out, and the
  // perf breakpoint's #DB at every visit ran for minutes in a hot loop.
  return inserted.lower_bound(begin) == inserted.lower_bound(end);
}

bool ThreadedTimeline::Impl::reads_watched(uint64_t addr, uint64_t len) {
  for (const WatchRange& w : armed)
    if (w.kind != WatchKind::Write && w.addr < addr + len && addr < w.addr + w.len) return true;
  return false;
}

Status ThreadedTimeline::Impl::lift_breakpoints() {
  TRY(stop_counting());
  process::Task* t = any_task();
  if (!t) return ok_status();
  for (auto& [addr, orig] : inserted) TRY(t->write_memory(RemoteAddr(addr), {&orig, 1}));
  return ok_status();
}

Status ThreadedTimeline::Impl::insert_breakpoints() {
  process::Task* t = any_task();
  if (!t) return ok_status();
  for (auto& [addr, orig] : inserted) TRY(t->write_memory(RemoteAddr(addr), {&kInt3, 1}));
  return ok_status();
}

Status ThreadedTimeline::Impl::stop_counting() {
  if (counters.empty()) return ok_status();
  process::Task* t = any_task();
  if (!t) return Error::msg("no live thread");
  // A thread a watch left among a stub's moved instructions stands at
  // the program's copy of the next one once the code is back.
  std::vector<std::pair<process::Task*, uint64_t>> moved;
  for (SegmentThread& th : live)
    if (Result<user_regs_struct> r = th.task->regs(); r.ok())
      if (std::optional<uint64_t> pc = counters.moved_from(r->rip)) moved.emplace_back(th.task, *pc);
  TRY(counters.remove_all(*t));
  for (auto& [task, pc] : moved) {
    user_regs_struct r = TRY(task->regs());
    r.rip = pc;
    TRY(task->set_regs(r));
  }
  for (const auto& [key, n] : counters.totals()) counts[key] = n;
  for (uint64_t a : counted)
    if (!inserted.count(a) && !pending.count(a) && !insert_at(a).ok()) pending.insert(a);
  return ok_status();
}

Status ThreadedTimeline::Impl::sync_breakpoints(std::optional<Tid> stepping) {
  bool redo = false;
  for (uint64_t a : user_bps) {
    if (counted.count(a)) {
      if (!pending.count(a) && !insert_at(a).ok()) pending.insert(a);
      continue;
    }
    if (!executed) {
      counted.insert(a);
      if (!insert_at(a).ok()) pending.insert(a);
    } else if (!insert_at(a).ok()) {
      // Not mapped now, so never run since the restore (FIXME: unless a
      // dlclose unmapped it): its count starts exact.
      counted.insert(a);
      pending.insert(a);
    } else {
      redo = true;
    }
  }
  if (redo) {
    SLSDBG_DEBUG("replay", "a breakpoint was added inside segment %llu: replaying it again to count arrivals",
                 (unsigned long long)k);
    TRY(seek(cur));
  }
  uint64_t stepping_pc = 0;
  if (stepping)
    for (SegmentThread& t : live)
      if (t.recorded == *stepping)
        if (auto r = t.task->regs(); r.ok()) stepping_pc = r->rip;
  for (auto it = counted.begin(); it != counted.end();) {
    if (user_bps.count(*it)) {
      ++it;
      continue;
    }
    TRY(remove_at(*it));
    pending.erase(*it);
    // GDB steps over its breakpoint by lifting it for one step of the
    // thread on it: that arrival is counted already.
    if (*it == stepping_pc) {
      ++it;
      continue;
    }
    it = counted.erase(it);
  }
  return ok_status();
}

Status ThreadedTimeline::Impl::sync_watches() {
  bool missing = false;
  for (const WatchRange& w : user_watches)
    if (!slot_bit(w)) missing = true;
  if (!missing) return ok_status();
  if (!executed) {
    armed.assign(user_watches.begin(), user_watches.end());
    return arm_watches_everywhere();
  }
  SLSDBG_DEBUG("replay", "a watchpoint was added inside segment %llu: replaying it again to count accesses",
               (unsigned long long)k);
  return seek(cur);
}

}  // namespace slsdbg::replay
