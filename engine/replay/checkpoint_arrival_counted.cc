// The checkpoint's pc without the patched breakpoint (refused, dropped after
// a failed or unproven run, SLSDBG_REPLAY_PATCH=miss/off): the perf
// breakpoint would take a kernel #DB at every visit of the pc (36 s for one
// 10 ms segment of revstep_far). Instead a copy of the tracee, forked here,
// counts the visits in-process (counting_patch.h) and learns which visit is
// the checkpoint:
//   - it stops at visits 1, 2 and 3 and reads the registers and the words of
//     the target's stack pages; a value that moves by the same nonzero step
//     d at each visit (a loop counter, in a register or on an -O0 stack)
//     names the visit where it equals the recorded one: 1 + (T - v1) / d;
//     with none ahead, three visits again, an eighth further on each time
//     (the counter of the loop function's next call);
//   - it stops only at those visits and compares registers and memory as
//     the breakpoint would.
// The copy is exact (replay is deterministic), so once it stands at the
// checkpoint, or at an observer's int3 or watchpoint met first (it has the
// watchpoints' debug registers), it replaces the tracee there, without the
// counting patch: the breakpoint then costs one #DB, or the observer's
// trap comes at once (a watch's is handed over, take_copy_at_watch). A copy
// that learns nothing (no moving value, a syscall, a signal, its CPU
// budget) is dropped, and the run keeps the perf breakpoint as before.
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/log.h"
#include "engine/replay/counting_patch.h"
#include "engine/replay/debug_registers.h"
#include "engine/replay/relay_site.h"
#include "engine/replay/segment_run.h"
#include "engine/replay/tracee_fork.h"
#include "engine/replay/visit_prediction.h"
#include "process/task_clock.h"

#ifndef TRAP_HWBKPT
#define TRAP_HWBKPT 4
#endif

namespace slsdbg::replay {

namespace {

constexpr uint8_t kInt3 = 0xcc;
constexpr size_t kQuickSamples = 3;       // consecutive visits read before predicting a step at each
constexpr size_t kSamples = 25;           // ... and when that predicts nothing, for a period
constexpr int kMaxResamples = 200;        // later sample runs, each 1/8 further on
constexpr size_t kMaxCandidates = 64;     // predicted visits tried
constexpr int kMaxRestarts = 24;          // new copies narrowing brackets
constexpr int kMaxBrackets = 6;           // values that passed their target, narrowed
constexpr uint64_t kStayVisits = 4096;    // visits stopped at while such a value keeps its target
constexpr uint64_t kStackPages = 2;       // from the target's rsp upward
constexpr size_t kDirtyPagesSampled = 32;  // of the segment's dirty set, in address order

// Kills the copy unless it was taken.
struct CountCopy {
  std::optional<process::Task> task;
  ~CountCopy() {
    if (task) task->kill_and_reap();
  }
};

std::vector<uint64_t> general_values(const user_regs_struct& r) {
  return {r.rax, r.rbx, r.rcx, r.rdx, r.rsi, r.rdi, r.rbp, r.r8, r.r9, r.r10, r.r11, r.r12, r.r13, r.r14, r.r15};
}

}  // namespace

Status ReplaySession::SegmentRun::reach_or_arm(int deliver) {
  if (deliver || !TRY(reach_by_count())) return arm_breakpoint();
  return ok_status();
}

// A segment replayed again after its patched run overran the CPU budget
// (no observer, SLSDBG_REPLAY_PATCH=miss: up to kPatchAttempts runs with
// budgets 4x larger each, 40 s for revstep_far's 5 segments), or any
// segment after a patched run of this process failed
// (ReplaySession::patch_missed; each later one spent its whole budget
// first: 0.22 s per 10 ms segment of watch_hot_loop under =miss): the
// counting copy first, the patch with the larger budget only if it learns
// nothing.
// True: the arrival is settled.
Result<bool> ReplaySession::SegmentRun::count_before_patch(int deliver) {
  if (deliver || (s_.patch_failures_ == 0 && !ReplaySession::patch_missed()) || !armed<NothingArmed>() ||
      free_run_ != FreeRun::None)
    return false;
  if (TRY(reach_by_count())) return true;
  if (std::exchange(counted_at_pc_, false)) {
    TRY(arm_breakpoint());
    return true;
  }
  return false;
}

Result<bool> ReplaySession::SegmentRun::reach_by_count() {
  // A read or access watchpoint keeps the patch out for as long as it is
  // armed (the trampoline reads the program's memory); the count reads none.
  const bool patch_gone = patch_ == PatchState::SiteRefused || patch_ == PatchState::Dropped ||
                          patch_ == PatchState::Failed || patch_ == PatchState::FailedByBudget || s_.patch_off_ ||
                          s_.patch_failures_ > 0 || ReplaySession::patch_missed() ||
                          (patch_ == PatchState::AskAgain && s_.dregs_.holds(DrUse::Watch, DrKind::Access));
  const char* mode = std::getenv("SLSDBG_REPLAY_COUNT_REACH");  // "off": the perf breakpoint alone (measurements)
  if (count_refused_ || !patch_gone || !awaits_checkpoint() || target_at_ != RegsAt::Anywhere ||
      (mode && std::string(mode) == "off"))
    return false;
  const auto refuse = [&](const std::string& why) -> Result<bool> {
    SLSDBG_DEBUG("replay", "checkpoint %llu: not reached by count: %s", (unsigned long long)seg_.value + 1, why.c_str());
    count_refused_ = true;  // not again in this run
    return false;
  };
  // A fork has no debug registers: the copy gets the watchpoints' (a watch
  // met first hands its trap over, take_copy_at_watch), but a probe's
  // arrivals would go uncounted until its counter stub replaces the probe.
  // The observer's stubs go in now, as at its resumption, so that the copy
  // holds them: a count before the session's first resumption (a segment
  // that counts first, ReplaySession::patch_missed) would otherwise run the
  // segment without the Timeline's counts of its breakpoints' hits, and a
  // reverse-finish landed a call too far back.
  if (s_.observer_) TRY(s_.observer_->before_copy(task_));
  if (s_.dregs_.holds(DrUse::CountProbe) || s_.dregs_.holds(DrUse::TargetProbe)) {
    recount_ = true;
    return false;
  }
  // The patch's own choice of site (relay_site.h): a jump or branch at pc
  // with no site of its own is relayed through int3 padding (nocfi_loop,
  // Go's loops), and no branch may land among the bytes moved.
  Result<PatchSite> site = plan_checkpoint_site(target_.rip, code_reader());
  if (!site.ok()) return refuse(site.error().message);
  count_site_ = *site;
  if (s_.observer_ && !s_.observer_->allows_count(site->anchor, site->end())) {
    // As for the patch (observer_allows_site): a breakpoint on the line
    // after a hot loop whose jump the checkpoint stands on lies among the
    // bytes a jump at pc replaces; an anchor before pc ends at pc's
    // instruction (tight_loop's `break` after the loop under =miss: a #DB
    // per iteration, over a minute).
    Result<PatchSite> anchored = site->anchored() ? Result<PatchSite>(Error::msg("anchored already"))
                                                  : plan_anchored_site(target_.rip, code_reader());
    if (!anchored.ok() || !s_.observer_->allows_count(anchored->anchor, anchored->end())) {
      recount_ = true;  // stepping over its breakpoint, say: the breakpoint until then
      return false;
    }
    site = std::move(anchored);
    count_site_ = *site;
  }
  Result<bool> shared = has_shared_writable_mapping(task_.tgid());
  if (!shared.ok() || *shared) return refuse("a shared writable mapping");
  user_regs_struct now = TRY(task_.regs());
  if (now.rip > site->anchor && now.rip < site->end() && !(site->anchored() && now.rip == site->pc)) {
    // Inside the bytes the jump replaces (a checkpoint a few bytes after the
    // last): one #DB at the next arrival at pc, then the count from there,
    // as the patch waits (not the breakpoint's #DB at every visit).
    TRY(insert_breakpoint(/*then_patch=*/true));
    return true;
  }
  // An int3 at rip has not run: the observer allows the count, so it is not
  // stepping over a breakpoint it has shown (the rescue copy of a patched
  // run stands right after a `syscall` that returns onto one, say). Its
  // trap comes first, at once; the count starts at the resumption after it.
  uint8_t at_rip = 0;
  if (s_.observer_ && task_.read_memory(RemoteAddr(now.rip), {&at_rip, 1}).ok() && at_rip == kInt3) {
    s_.observer_->hide_traps(now.rip, {&at_rip, 1});
    if (at_rip == kInt3) return refuse("the program's own int3 at " + hex(now.rip));
    recount_ = true;
    return false;
  }
  now.orig_rax = static_cast<uint64_t>(-1);
  if (s_.observer_) now.rip = s_.observer_->copy_start_pc(now.rip);
  const uint64_t mask = TRY(task_.signal_mask());
  const std::optional<uint64_t> hint = hint_;
  // The checkpoint comes within about the hint, slowed by the count's stub
  // at every visit: in a loop of a cycle or two per iteration (an -O1 store
  // loop) the stub makes it ~8x slower, and 3x the hint ran out short of
  // the checkpoint every time (watch_far_loop under =miss: the perf
  // breakpoint's #DB per visit instead, minutes). The patched run's 20x.
  const uint64_t budget = hint ? 20 * *hint + 20'000'000 : 10'000'000'000ull;
  CountCopy copy;
  std::optional<CountingPatch> counter;
  UniqueFd alarm;
  // A copy standing where the tracee does, its count stopping at visit
  // `first`. Again for an inner loop's runs (LoopRuns): the first copy may
  // have run past a run its samples skipped.
  const auto launch = [&](uint64_t first) -> Status {
    if (copy.task) copy.task->kill_and_reap();
    copy.task.reset();
    counter.reset();
    Result<process::Task> forked = fork_tracee(task_, now, mask);
    if (!forked.ok()) return Error::msg("no copy: " + forked.error().message);
    copy.task.emplace(std::move(*forked));
    process::Task& t = *copy.task;
    if (s_.dregs_.holds(DrUse::Watch)) {
      DebugRegisters watches = s_.dregs_;  // the same slots, so DR6 names them as for the tracee
      for (int i = 0; i < DebugRegisters::kSlots; i++)
        if (watches.slot(i).use != DrUse::Watch && watches.slot(i).use != DrUse::Free) watches.release(i);
      if (Status st = watches.apply(t.raw_tid()); !st.ok())
        return Error::msg("the copy's watchpoints: " + st.error().message);
    }
    std::vector<uint8_t> code(std::max<uint64_t>(32, site->length));
    if (!t.read_memory(RemoteAddr(site->anchor), code).ok()) return Error::msg("the code is not readable");
    if (s_.observer_) s_.observer_->hide_traps(site->anchor, code);
    Result<CountingPatch> installed = CountingPatch::install(t, *site, code);
    if (!installed.ok()) return Error::msg(installed.error().message);
    counter.emplace(std::move(*installed));
    if (site->anchored() && now.rip == site->pc) {
      user_regs_struct in_stub = now;
      in_stub.rip = counter->entry_addr();  // pc's bytes are gone: count this arrival in the stub
      TRY(t.set_regs(in_stub));
    }
    TRY(counter->set_limit(t, first));
    Result<UniqueFd> armed_alarm = process::arm_cpu_time_alarm(t.raw_tid(), budget);
    if (!armed_alarm.ok()) return Error::msg("no CPU-time alarm: " + armed_alarm.error().message);
    alarm = std::move(*armed_alarm);
    return ok_status();
  };
  if (Status st = launch(1); !st.ok()) return refuse(st.error().message);

  // The recorded values the samples are compared with: the registers, the
  // words of the target's stack pages and of some pages the segment
  // dirtied (a loop whose state lives in memory only, rec_memloop: every
  // visit has the recorded registers, and its counter is a global's).
  const CheckpointId next(seg_.value + 1);
  std::vector<uint64_t> page_words;
  std::vector<uint64_t> sampled_pages;
  const auto add_page = [&](uint64_t page) {
    if (std::find(sampled_pages.begin(), sampled_pages.end(), page) != sampled_pages.end()) return;
    std::vector<uint8_t> bytes(kPageSize);
    if (!s_.reader_.read_memory(next, page, bytes).ok()) return;
    sampled_pages.push_back(page);
    for (uint64_t off = 0; off < kPageSize; off += 8) {
      uint64_t w = 0;
      std::copy_n(bytes.begin() + static_cast<long>(off), 8, reinterpret_cast<uint8_t*>(&w));
      page_words.push_back(w);
    }
  };
  for (uint64_t i = 0; i < kStackPages; i++) add_page((target_.rsp & ~(kPageSize - 1)) + i * kPageSize);
  if (Result<std::vector<uint64_t>> dirty = s_.reader_.dirty_pages(next); dirty.ok())
    for (size_t i = 0; i < dirty->size() && i < kDirtyPagesSampled; i++) add_page((*dirty)[i]);
  std::vector<uint64_t> target_values = general_values(target_);
  target_values.insert(target_values.end(), page_words.begin(), page_words.end());
  std::vector<std::vector<uint64_t>> samples;  // at visits base, base + 1, ...
  uint64_t base = 1;
  int resamples = 0;
  std::set<uint64_t> candidates;
  std::set<uint64_t> confirmed;  // candidates two sample runs predicted
  size_t wanted = kQuickSamples;  // samples of this run
  std::map<size_t, std::set<uint64_t>> phases;  // per value: periodic_visits' phase points
  LoopRuns runs;  // what they say, after each sample run
  uint64_t chain = 0;  // an inner loop's length, once the count went on from a new copy (LoopRuns)
  std::vector<Monotone> monotone;  // per value
  std::optional<Bracket> bracket;  // once a value moving one way passed its target
  std::optional<Bracket> stay;     // then from the first visit with it, up to hi
  int restarts = 0;  // new copies narrowing brackets
  int brackets = 0;
  // Three samples again from the visit after this one.
  const auto sample_after = [&](process::Task& t, uint64_t visit) -> Status {
    base = visit + 1;
    samples.clear();
    wanted = kQuickSamples;
    return counter->set_limit(t, base);
  };
  // A new copy narrowing a bracket from its low end, no samples meanwhile.
  const auto narrow = [&](const Bracket& b) -> Status {
    brackets++;
    TRY(launch(b.next()));
    bracket = b;
    samples.clear();
    wanted = 0;
    return ok_status();
  };
  // Value j at the copy's stop (registers, then the sampled pages' words).
  const auto value_at = [&](process::Task& t, const user_regs_struct& r, size_t j) -> Result<int64_t> {
    const std::vector<uint64_t> regs_now = general_values(r);
    if (j < regs_now.size()) return static_cast<int64_t>(regs_now[j]);
    const size_t w = j - regs_now.size();
    uint64_t v = 0;
    TRY(t.read_memory(RemoteAddr(sampled_pages[w / (kPageSize / 8)] + (w % (kPageSize / 8)) * 8),
                      {reinterpret_cast<uint8_t*>(&v), 8}));
    return static_cast<int64_t>(v);
  };
  uint64_t stops = 0;
  for (;;) {
    process::Task& t = *copy.task;
    TRY(t.cont());
    process::WaitResult w = TRY(t.wait());
    if (w.kind == process::StopKind::PtraceEvent && !bracket && !stay && !chain && brackets < kMaxBrackets) {
      // At a system call: past the checkpoint. A value moving one way and
      // last seen before its target brackets it up to the visits so far.
      const uint64_t end = TRY(counter->count(t));
      if (std::optional<Bracket> b = bracket_to_end(monotone, target_values, end); b) {
        SLSDBG_DEBUG("replay", "checkpoint %llu: a system call after visit %llu; value %zu reached its target after visit %llu; narrowing",
                     (unsigned long long)seg_.value + 1, (unsigned long long)end, b->j, (unsigned long long)b->lo);
        if (Status st = narrow(*b); !st.ok()) return refuse(st.error().message);
        continue;
      }
    }
    if (w.kind != process::StopKind::SignalDelivery || w.signo != SIGTRAP)
      return refuse("the copy stopped otherwise (stop kind " + std::to_string(static_cast<int>(w.kind)) + ", signal " +
                    std::to_string(w.signo) + ")");
    const siginfo_t si = TRY(t.siginfo());
    if (process::is_cpu_time_alarm(si)) {
      // A whole budget spent for nothing: the patch goes first again.
      ReplaySession::forget_patch_misses();
      return refuse(candidates.empty() ? "no value moves by a constant step at each visit"
                                       : "no predicted visit matched within the CPU budget");
    }
    user_regs_struct regs = TRY(t.regs());
    stops++;
    if (si.si_code == TRAP_HWBKPT && s_.dregs_.holds(DrUse::Watch)) {
      // The copy made no syscall: its mask is the one it was forked with.
      if (mask & (1ull << (SIGTRAP - 1)))
        return refuse("a watchpoint fired with SIGTRAP blocked (its trap cannot be handed over)");
      if (!TRY(take_copy_at_watch(t, *counter, *site, si, regs)))
        return refuse("a watchpoint fired in the count's stub");
      SLSDBG_DEBUG("replay",
                   "checkpoint %llu: the counting copy met a watchpoint first (%llu stops); it goes on from there",
                   (unsigned long long)seg_.value + 1, (unsigned long long)stops);
      copy.task.reset();
      return true;
    }
    if (si.si_code != SI_KERNEL) return refuse("a trap other than an int3");
    if (regs.rip != counter->reached_rip()) {
      // An int3 met first (the observer's breakpoint or counter): the
      // tracee would stop there too. The copy takes its place on the int3.
      uint8_t byte = 0;
      if (!t.read_memory(RemoteAddr(regs.rip - 1), {&byte, 1}).ok() || byte != kInt3)
        return refuse("a trap at " + hex(regs.rip));
      if (regs.rip - 1 > site->anchor && regs.rip - 1 < site->end())
        return refuse("a branch entered the bytes the count's jump replaced (" + hex(regs.rip - 1) + ")");
      TRY(counter->remove(t));
      regs.rip -= 1;
      TRY(t.set_regs(regs));
      SLSDBG_DEBUG("replay", "checkpoint %llu: the counting copy met an int3 at %s first (%llu stops); it goes on from there",
                   (unsigned long long)seg_.value + 1, hex(regs.rip).c_str(), (unsigned long long)stops);
      take_count_copy(*copy.task);
      copy.task.reset();
      free_run_ = FreeRun::Pending;  // nothing armed until that trap
      return true;
    }
    const uint64_t visit = TRY(counter->count(t));
    user_regs_struct at = regs;
    at.rip = target_.rip;
    if (same_general_registers(at, target_, nullptr, target_at_)) {
      // The memory decides, read from the copy (as the trampoline's proof does).
      if (TRY(copy_at_next_checkpoint(t))) {
        TRY(counter->remove(t));
        TRY(t.set_regs(at));  // at pc, its code back: the breakpoint's one #DB ends the run
        SLSDBG_INFO("replay", "checkpoint %llu: reached by count at visit %llu of %s (%llu stops of the counting copy)",
                    (unsigned long long)seg_.value + 1, (unsigned long long)visit, hex(target_.rip).c_str(),
                    (unsigned long long)stops);
        take_count_copy(*copy.task);
        copy.task.reset();
        counted_at_pc_ = true;
        return false;  // the caller arms the breakpoint at the pc
      }
    }
    if (chain && candidates.count(visit) && visit + chain < kMaxVisit) {
      // Not in this run of the inner loop: the same value comes again one run on.
      candidates.insert(visit + chain);
      confirmed.insert(visit + chain);
    }
    if (stay) {
      // Every visit while the value stays at the target's (registers checked above).
      const int64_t x = TRY(value_at(t, regs, stay->j));
      if (x == stay->want && visit < stay->hi) {
        TRY(counter->set_limit(t, visit + 1));
        continue;
      }
      SLSDBG_DEBUG("replay", "checkpoint %llu: value %zu kept its target up to visit %llu", (unsigned long long)seg_.value + 1,
                   stay->j, (unsigned long long)visit);
      stay.reset();
      TRY(sample_after(t, visit));
      continue;
    }
    if (bracket) {
      // Narrowing the bracket: forward from its low end in eighths (every
      // visit in the last 64); a look past the target closes it from above,
      // and a new copy starts again below.
      const int64_t x = TRY(value_at(t, regs, bracket->j));
      if (bracket->before(x) && visit < bracket->hi) {
        bracket->lo = visit;
        TRY(counter->set_limit(t, bracket->next()));
        continue;
      }
      if (visit <= bracket->lo + 1 || ++restarts > kMaxRestarts) {
        // The first visit with the target's value: the checkpoint is here
        // (not: the registers differ), or further on while the value stays
        // (an inner loop's visits), where the samples go on from. Or the
        // value jumped over it, or narrowing took too long: it was not
        // the loop's position; the samples go on from here all the same,
        // the records of every value anew (this copy is behind them).
        SLSDBG_DEBUG("replay", "checkpoint %llu: value %zu %s at visit %llu", (unsigned long long)seg_.value + 1,
                     bracket->j, x == bracket->want ? "first has its target" : "passed its target",
                     (unsigned long long)visit);
        monotone[bracket->j].broken = true;
        for (Monotone& m : monotone)
          if (!m.broken) m = {};
        if (x == bracket->want) {
          // The checkpoint, if this value names it, is among the next visits
          // that keep it (an inner loop's while its position stays): each one.
          stay = bracket;
          stay->hi = visit + kStayVisits;
          bracket.reset();
          TRY(counter->set_limit(t, visit + 1));
          continue;
        }
        bracket.reset();
        TRY(sample_after(t, visit));
        continue;
      }
      bracket->hi = visit;
      if (Status st = launch(bracket->next()); !st.ok()) return refuse(st.error().message);
      continue;
    }
    if (samples.size() < wanted && visit == base + samples.size()) {
      std::vector<uint64_t> values = general_values(regs);
      for (uint64_t p : sampled_pages) {
        std::vector<uint8_t> bytes(kPageSize);
        if (!t.read_memory(RemoteAddr(p), bytes).ok()) std::fill(bytes.begin(), bytes.end(), 0);  // never moves
        for (uint64_t off = 0; off < kPageSize; off += 8) {
          uint64_t v = 0;
          std::copy_n(bytes.begin() + static_cast<long>(off), 8, reinterpret_cast<uint8_t*>(&v));
          values.push_back(v);
        }
      }
      samples.push_back(std::move(values));
      if (samples.size() == wanted) {
        std::set<uint64_t> fresh;
        predict(samples, target_values, base, fresh, phases);
        runs = loop_runs(phases, 2 * kSamples);
        if (!chain && brackets < kMaxBrackets) {
          if (std::optional<Bracket> b = monotone_bracket(samples, target_values, base, monotone); b) {
            // Passed already: a new copy narrows (lo, hi] from the start.
            SLSDBG_DEBUG("replay", "checkpoint %llu: value %zu passed its target between visits %llu and %llu; narrowing",
                         (unsigned long long)seg_.value + 1, b->j, (unsigned long long)b->lo,
                         (unsigned long long)b->hi);
            if (Status st = narrow(*b); !st.ok()) return refuse(st.error().message);
            continue;
          }
        }
        if (runs.length) {
          // A value moving by a constant step within runs of an inner loop
          // that starts again every outer iteration (rec_sigalrm): the
          // checkpoint is at its phase in one of the runs. Samples an eighth
          // further on each time skip runs, so a new copy stops at every
          // run's phase point from the first.
          if (Status st = launch(runs.first); !st.ok()) return refuse(st.error().message);
          SLSDBG_DEBUG("replay", "checkpoint %llu: an inner loop of %llu visits; a new copy stops at visit %llu and every run on",
                       (unsigned long long)seg_.value + 1, (unsigned long long)runs.length,
                       (unsigned long long)runs.first);
          chain = runs.length;
          candidates = {runs.first};
          confirmed = {runs.first};
          phases.clear();
          runs = {};
          samples.clear();
          wanted = 0;  // no more samples
          continue;
        }
        if (fresh.empty() && wanted < kSamples) {
          wanted = kSamples;  // no step at every visit: more visits, for a period
        } else {
          for (uint64_t v : fresh)
            if (!candidates.insert(v).second) confirmed.insert(v);  // predicted again from later samples
          while (candidates.size() > kMaxCandidates) candidates.erase(std::prev(candidates.end()));
        }
      }
    }
    uint64_t limit = visit + 1;
    if (samples.size() == wanted) {
      auto c = candidates.upper_bound(visit);
      limit = c == candidates.end() ? 0 : *c;
      // A visit predicted far ahead may come from a value that moves by a
      // constant step only for a while (a double's bits within one power
      // of two): unless later samples predict it again, they are taken at
      // twice the visits so far first, so the copy does not run past a
      // target its samples could not predict yet.
      const uint64_t horizon = 2 * visit + kSamples;
      if (c != candidates.end() && *c > horizon && !confirmed.count(*c) && resamples < kMaxResamples) {
        resamples++;
        base = horizon;
        samples.clear();
        wanted = kQuickSamples;
        limit = base;
      } else if (c == candidates.end() && resamples < kMaxResamples) {
        // Nothing predicted ahead: the loop's counter may start again (the
        // segment crosses into the loop function's next call, whose
        // counter reaches the checkpoint's value). Three visits again, an
        // eighth further on each time: a few hundred stops at most.
        // Less than half a run of an inner loop seen restarting, so that
        // every run is sampled (its phase point, LoopRuns).
        resamples++;
        uint64_t stride = std::max<uint64_t>(kSamples, visit / 8);
        if (runs.shortest) stride = std::min(stride, std::max<uint64_t>(kSamples, runs.shortest / 2));
        base = visit + stride;
        samples.clear();
        wanted = kQuickSamples;
        limit = base;
      }
      // Else none left: an int3 met before the checkpoint (the
      // observer's) may still come; else the CPU budget ends the copy.
    }
    TRY(counter->set_limit(t, limit));
  }
}

// The copy stopped right after a watched access, before the checkpoint: the
// tracee would stop there too. It becomes the tracee, without the count,
// and its trap is handed over: a SIGTRAP sent now stops the next
// resumption at once, and on_signal shows the observer the watch's siginfo
// (DR6 keeps the watch's bits). False: the access was the count's own
// (nothing to show it at).
Result<bool> ReplaySession::SegmentRun::take_copy_at_watch(process::Task& copy, CountingPatch& counter,
                                                           const PatchSite& site, const siginfo_t& si,
                                                           user_regs_struct regs) {
  if (counter.in_stub(regs.rip)) {
    // After a moved access: where the program stands, from which its own code runs on.
    std::optional<uint64_t> at = counter.site_end_at(regs.rip);
    if (!at) at = counter.moved_from(regs.rip);
    if (!at) return false;
    regs.rip = *at;
  } else if (regs.rip > site.anchor && regs.rip < site.end()) {
    return false;  // inside the bytes the jump replaced
  }
  TRY(counter.remove(copy));
  TRY(copy.set_regs(regs));
  take_count_copy(copy);
  if (::syscall(SYS_tgkill, task_.tgid(), task_.raw_tid(), SIGTRAP) != 0) return Error::from_errno("tgkill(SIGTRAP)");
  handed_watch_trap_ = si;
  free_run_ = FreeRun::Pending;  // nothing armed until that trap
  return true;
}

// The copy stands where the tracee would: it becomes the tracee.
void ReplaySession::SegmentRun::take_count_copy(process::Task& copy) {
  arrival_.emplace<NothingArmed>();
  task_.kill_and_reap();
  task_ = std::move(copy);
  carry_debug_registers();
  if (s_.observer_) s_.observer_->copy_took_over();
  outcome_.counted_reaches++;
}

}  // namespace slsdbg::replay
namespace slsdbg::replay {

// Called by go() before each resumption: the one onto the int3 keeps
// nothing armed (the copy showed the trap comes first); the next one arms
// the checkpoint again, from where the tracee then is.
Status ReplaySession::SegmentRun::after_free_run(int signo) {
  // The observer refused the counting copy for one resumption: once it
  // would allow it, the breakpoint armed meanwhile makes way for the count.
  // Or the patch went away for the observer's trap and a read or access
  // watchpoint, armed since, keeps it out: the count, not a #DB per visit.
  if (!recount_ && signo == 0 && patch_ == PatchState::AskAgain && s_.dregs_.holds(DrUse::Watch, DrKind::Access) &&
      !count_refused_ &&
      cursor_ == events_.size() && (armed<ConditionalArrival>() || armed<DebugRegisterArrival>()) &&
      TRY(task_.regs()).rip != target_.rip)  // at the pc the breakpoint's one #DB comes next
    recount_ = true;
  if (recount_ && signo == 0 && free_run_ == FreeRun::None && awaits_checkpoint() &&
      (armed<ConditionalArrival>() || armed<DebugRegisterArrival>()) &&
      (!s_.observer_ || !count_site_ || s_.observer_->allows_count(count_site_->anchor, count_site_->end()))) {
    const DebugRegisterArrival* d = armed<DebugRegisterArrival>();
    if (d && d->then_patch) return ok_status();
    recount_ = false;
    if (d) TRY(remove_breakpoint());
    arrival_.emplace<NothingArmed>();
    return reach_or_arm();
  }
  if (free_run_ == FreeRun::Pending) return ok_status();  // go() resumes onto the trap
  if (free_run_ == FreeRun::None) return ok_status();
  free_run_ = FreeRun::None;
  if (armed<NothingArmed>() && awaits_checkpoint()) return maybe_patch(signo);
  return ok_status();
}

}  // namespace slsdbg::replay
