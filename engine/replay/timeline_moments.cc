// Moves that start from, and leave behind, moment snapshots
// (moment_snapshots.h): reaching the n-th arrival at a pc from the nearest
// kept copy of an earlier arrival, and keeping copies on the way.
#include <algorithm>

#include "common/log.h"
#include "engine/replay/counting_patch.h"
#include "engine/replay/timeline_impl.h"
#include "engine/replay/tracee_fork.h"

namespace slsdbg::replay {

namespace {
// Copies kept on the way to arrival n, counted back from it: n - 2^j for
// j = 1..kMaxBackoff (a reverse step needs n - 1, then n - 2, ...; the
// doubling keeps every later one within a few arrivals of a copy).
constexpr int kMaxBackoff = 20;
}  // namespace

bool Timeline::Impl::moment_adoptable(const Moment& m) const {
  if (!moments || options.max_moment_snapshots == 0) return false;
  return no_signal_before(Base::after(m.checkpoint, m.event));
}

Status Timeline::Impl::fresh_at(MomentSnapshot& s) {
  session.reset();
  forget_counter();
  process::Task task = TRY_CTX(fork_tracee(s.task, s.regs, s.sigmask), "forking the copy at " + s.moment.to_string());
  session = ReplaySession::adopt(reader, CheckpointId(s.moment.checkpoint), std::move(task), s.moment.event);
  session->set_observer(this);
  segment = s.moment.checkpoint;
  cursor = s.moment.event;
  inserted.clear();
  stepping = false;
  stepping_syscall = false;
  pause_at_syscall_exit = PauseWhy::None;
  lifted_bp.reset();
  step_over_pending = true;  // the instruction at the moment has not run
  why = PauseWhy::None;
  at_exit = false;
  at_end = false;
  TRY(insert_breakpoint_bytes());
  TRY(adopt_stubs(s.stubs));
  reset_counts();
  // The counts of that moment (its own arrival included), for the
  // breakpoints counted then and inserted now.
  bp_valid.clear();
  for (uint64_t addr : s.bp_valid)
    if (inserted.count(addr) || counted_bps.count(addr)) {
      bp_valid.insert(addr);
      auto c = s.bp_count.find(addr);
      bp_count[addr] = c == s.bp_count.end() ? 0 : c->second;
    }
  // The probe's and the target's arrivals up to that moment, where the copy
  // knows them (reach_base picks such a copy when it counts them).
  if (count_pc) count_value = s.count_of(*count_pc).value_or(0);
  // The companions that copy knows (not by a lent count: one may be taken back).
  for (uint64_t pc : companions) {
    const std::optional<uint64_t> n = s.lent.count(pc) ? std::nullopt : s.count_of(pc);
    if (n && companion_valid.count(pc)) companion_count[pc] = *n;
    else companion_valid.erase(pc);
  }
  if (target) target_count = s.count_of(target->pc).value_or(0);
  TRY(assign_slots());
  TRY(apply_debug_registers());
  if (target && cursor == target->event && target_count == target->n) why = PauseWhy::Target;
  return ok_status();
}

// The counter stubs' jumps lifted for a copy (the stubs listed), the counts
// so far folded. Where the tracee stands in a stub, or a lift fails, the
// stubs come out entirely instead (the old way: none then to list).
Status Timeline::Impl::lift_counter_jumps(std::vector<CountingPatch>& stubs) {
  if (counters.empty()) return ok_status();
  process::Task& task = session->task();
  const uint64_t rip = pc_now();
  bool in_stub = false;
  for (const auto& [pc, c] : counters) in_stub = in_stub || c.in_stub(rip);
  if (!in_stub) {
    TRY(fold_counter());
    Status st = ok_status();
    for (const auto& [pc, c] : counters) {
      st = c.lift_jump(task);
      if (!st.ok()) break;
      stubs.push_back(c);
    }
    if (st.ok()) return ok_status();
    SLSDBG_DEBUG("timeline", "counter jump not lifted: %s", st.error().message.c_str());
    (void)restore_counter_jumps();
    stubs.clear();
  }
  return drop_counter();
}

// A session forked from a copy holds the stubs the copy was made with, jumps
// lifted: each one's jump back in, counting on from 0, unless counting is
// off or the jump cannot go there now (the tracee inside its moved bytes,
// an int3 inserted among them); those are unmapped. place_counter() then
// removes the ones this run does not want, and places only what is missing.
Status Timeline::Impl::adopt_stubs(const std::vector<CountingPatch>& stubs) {
  process::Task& task = session->task();
  const uint64_t rip = pc_now();
  auto has_int3 = [&](uint64_t from, uint64_t to) { return inserted.lower_bound(from) != inserted.lower_bound(to); };
  for (const CountingPatch& c : stubs) {
    const uint64_t end = c.anchor() + c.length();
    const bool usable = counting_allowed() && !(rip > c.anchor() && rip < end && rip != c.pc()) &&
                        !has_int3(c.anchor(), end) && !(c.relay() && has_int3(c.relay(), c.relay() + kJmpLen)) &&
                        !counters.count(c.pc());
    if (usable && c.restore_jump(task).ok()) {
      counters.emplace(c.pc(), c);
      counter_used = true;
      continue;
    }
    (void)c.lift_jump(task);
    TRY_CTX(CountingPatch::unmap_page(task, c.page()), "the counter stub of " + hex_addr(c.pc()) + " in a copy");
  }
  return ok_status();  // fresh_at assigns the debug registers after
}

Status Timeline::Impl::restore_counter_jumps() {
  for (const auto& [pc, c] : counters) TRY(c.restore_jump(session->task()));
  return ok_status();
}

void Timeline::Impl::keep_moment(const Moment& m, uint64_t steps) {
  // A step copy only while no event has been consumed since m.
  const bool wanted = keep_copies || (steps == 0 && keep_only == m);
  if (!wanted || !moment_adoptable(m) || moments->has(m, steps) || segment != m.checkpoint || cursor != m.event) return;
  // The copy holds the program's code, not our int3 bytes nor the counter
  // stubs' jumps. The stubs stay in place here (no unmap now, no map again
  // at the next resumption: each is an injected syscall, and a run keeps
  // ~10 copies on its way); the copy unmaps their pages when it is used.
  std::vector<CountingPatch> stubs;
  if (Status st = lift_counter_jumps(stubs); !st.ok()) {
    SLSDBG_DEBUG("timeline", "no copy kept at %s: %s", m.to_string().c_str(), st.error().message.c_str());
    return;
  }
  process::Task& task = session->task();
  for (const auto& [addr, orig] : inserted) (void)task.write_memory(RemoteAddr(addr), {&orig, 1});
  Status st = [&]() -> Status {
    if (TRY(has_shared_writable_mapping(task.tgid()))) return Error::msg("a shared writable mapping");
    // The probe counts from the window's start (reach_base never starts it
    // from a copy that does not know it): exact at this moment too.
    std::map<uint64_t, uint64_t> counts;
    if (steps == 0 && count_pc) counts[*count_pc] = count_value;
    if (steps == 0)
      for (uint64_t pc : companion_valid) counts.emplace(pc, companion_count[pc]);
    return moments->take(task, m, steps, bp_count, bp_valid, std::move(counts), std::move(stubs));
  }();
  const uint8_t int3 = 0xcc;
  for (const auto& [addr, orig] : inserted) (void)task.write_memory(RemoteAddr(addr), {&int3, 1});
  if (Status back = restore_counter_jumps(); !back.ok()) {
    // Counting cannot go on through the lifted sites: the stubs out, as before
    // (placed again at the next resumption).
    SLSDBG_DEBUG("timeline", "counter jumps not restored: %s", back.error().message.c_str());
    (void)drop_counter();
  }
  if (!st.ok())
    SLSDBG_DEBUG("timeline", "no copy kept at %s + %llu steps: %s", m.to_string().c_str(), (unsigned long long)steps,
                 st.error().message.c_str());
}

// From the current arrival count to target->n, pausing at n - 2^j (largest
// j first) to keep a copy there, then at n itself.
Status Timeline::Impl::drive_to_target(const Base& b) {
  const uint64_t goal = b.n;
  std::vector<uint64_t> stops;
  if (keep_copies && moment_adoptable(Moment{b.k, b.e, b.pc, goal})) {
    for (int j = kMaxBackoff; j >= 1; j--) {
      const uint64_t back = 1ull << j;
      if (goal > back && goal - back > target_count) stops.push_back(goal - back);
    }
  }
  stops.push_back(goal);
  for (uint64_t n : stops) {
    target->n = n;
    if (why != PauseWhy::Target || target_count != n) {
      DriveResult d = TRY(drive(false));
      if (d.halt == Halt::Diverged && d.divergence) return Error::msg(d.divergence->describe());
      if (d.halt != Halt::Paused || why != PauseWhy::Target)
        return Error::msg("moment " + Moment{b.k, b.e, b.pc, b.n}.to_string() + " is not in history: pc " +
                          Moment{0, 0, b.pc, 1}.to_string().substr(4) + " runs " + std::to_string(target_count) +
                          " time(s) after event " + std::to_string(b.e));
    }
    keep_moment(Moment{b.k, b.e, b.pc, n});
  }
  return ok_status();
}

}  // namespace slsdbg::replay
