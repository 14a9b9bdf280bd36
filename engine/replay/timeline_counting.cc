// In-process counting for the Timeline's probes (counting_patch.h). The
// counting probe (how often has the current pc run since the latest event?)
// and the target probe (stop at the n-th arrival) sit on one pc, often
// inside a hot loop; a debug register there costs a #DB per visit (about
// 30 us here, minutes for a long loop). The patch counts in the tracee and
// traps only at the target, so resolving a moment or reaching one costs
// about one forward run.
//
// Counts: the Timeline's own count_value/target_count/bp_count plus the
// tracee's counters, which fold_counter() adds in (and zeroes) wherever the
// Timeline reads them. A reverse continue's scan counts the user's
// breakpoints the same way (scan_counted) and goes to the last one's moment. The patch is placed before each resumption when a probe wants
// it, and taken away for anything that would see it: single steps, a
// user's int3 or the session's patch in the bytes it moves, a moment
// snapshot. It stays in while watchpoints are armed (a write watched in a
// hot loop, then the moment of that stop resolved): a watchpoint stop
// outside the stub is exact (the Timeline reads the counter there); one
// inside the stub (a watched access among the moved instructions, whose rip
// is the stub's copy) fails the run, which is replayed again with debug
// registers (counted_retry). Where it cannot be placed the probe keeps its debug
// register, and the log says why. A recorded path that fails to replay with
// it is replayed again without (counted_retry).
// SLSDBG_REPLAY_COUNT=trap: debug registers only.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "common/log.h"
#include "engine/replay/patch_site.h"
#include "engine/replay/patched_breakpoint.h"
#include "engine/replay/timeline_impl.h"
#include "engine/replay/trampoline_code.h"

namespace slsdbg::replay {

namespace {
bool counting_by_trap() {
  const char* mode = std::getenv("SLSDBG_REPLAY_COUNT");
  return mode && std::string(mode) == "trap";
}
}  // namespace

bool Timeline::Impl::counting_allowed() const { return !counting_off && !counting_by_trap(); }

std::set<uint64_t> Timeline::Impl::counters_wanted() const {
  if (!counting_allowed() || motion == Motion::Step) return {};
  std::set<uint64_t> want = counted_bps;
  if (target) want.insert(target->pc);
  if (count_pc) want.insert(*count_pc);
  if (!collect) want.insert(companions.begin(), companions.end());
  return want;
}

bool Timeline::Impl::companion_only(uint64_t pc) const {
  return companions.count(pc) && !counted_bps.count(pc) && !(target && target->pc == pc) && !(count_pc && *count_pc == pc);
}

Status Timeline::Impl::evict_companion(uint64_t pc, const char* why) {
  auto it = counters.find(pc);
  if (it == counters.end()) {  // not placed: not to be placed later either
    counter_refused.insert(pc);
    drop_companion(pc, why);
    return ok_status();
  }
  TRY(fold_counter());
  Status st = it->second.remove(session->task());
  if (!st.ok()) SLSDBG_DEBUG("timeline", "removing the counter stub: %s", st.error().message.c_str());
  counters.erase(it);
  counter_refused.insert(pc);  // not again in this process
  drop_companion(pc, why);
  return ok_status();
}

void Timeline::Impl::forget_counter() {
  counters.clear();
  counter_refused.clear();
  session_patch.reset();
  probe_counted_at.reset();
}

Status Timeline::Impl::fold_counter() {
  process::Task& task = session->task();
  for (auto& [pc, c] : counters) {
    const uint64_t n = TRY(c.count(task));
    if (n == 0) continue;
    if (count_pc && *count_pc == pc) count_value += n;
    if (target && target->pc == pc) target_count += n;
    if (counted_bps.count(pc)) bp_count[pc] += n;
    if (companions.count(pc)) companion_count[pc] += n;
    TRY(c.set_count(task, 0));
  }
  return ok_status();
}

Status Timeline::Impl::drop_counter() {
  if (counters.empty()) return ok_status();
  TRY(fold_counter());
  for (auto& [pc, c] : counters) {
    Status st = c.remove(session->task());
    if (!st.ok()) SLSDBG_DEBUG("timeline", "removing the counter stub: %s", st.error().message.c_str());
  }
  counters.clear();
  TRY(assign_slots());
  return apply_debug_registers();
}

// Before a resumption: a stub on each counted pc, the target's with the
// limit that traps at its arrival.
CodeReader Timeline::Impl::code_reader() {
  return [this](uint64_t addr, std::span<uint8_t> out) {
    if (!session->task().read_memory(RemoteAddr(addr), out).ok()) return false;
    hide_traps(addr, out);
    return true;
  };
}

Status Timeline::Impl::place_counter(process::Task& task) {
  const std::set<uint64_t> want = counters_wanted();
  bool changed = false;
  for (auto it = counters.begin(); it != counters.end();) {
    if (want.count(it->first)) {
      ++it;
      continue;
    }
    TRY(fold_counter());
    Status st = it->second.remove(task);
    if (!st.ok()) SLSDBG_DEBUG("timeline", "removing the counter stub: %s", st.error().message.c_str());
    it = counters.erase(it);
    changed = true;
  }
  // The probes' own pcs first: a companion never takes their place.
  std::vector<uint64_t> order;
  for (uint64_t pc : want)
    if (!companion_only(pc)) order.push_back(pc);
  for (uint64_t pc : want)
    if (companion_only(pc)) order.push_back(pc);
  for (uint64_t pc : order) {
    const bool companion = companion_only(pc);
    if (counters.count(pc)) continue;
    if (companion && !companion_valid.count(pc)) continue;  // not known in this window anyway
    if (counter_refused.count(pc)) {
      if (companion) drop_companion(pc, "not counted in this process");
      continue;
    }
    auto refuse = [&](const std::string& why) {
      counter_refused.insert(pc);
      if (companion) {
        drop_companion(pc, why.c_str());
        return;
      }
      if (counted_bps.count(pc)) counted_bp_refused = true;
      SLSDBG_INFO("timeline", "counting arrivals at %s with a trap per visit: %s", hex_addr(pc).c_str(), why.c_str());
    };
    uint8_t probe[1];
    // Not mapped yet (a library's code): nothing runs there; tried again
    // at the next resumption, as a pending int3 is after an mmap.
    if (!task.read_memory(RemoteAddr(pc), probe).ok()) continue;
    Result<PatchSite> site = plan_patch_site(pc, code_reader());
    if (!site.ok()) {
      refuse(site.error().message);
      continue;
    }
    // A companion in the way of a probe makes room for it.
    if (!companion) {
      std::vector<uint64_t> in_the_way;
      for (const auto& [other, c] : counters)
        if (companion_only(other) && c.anchor() < site->end() && site->anchor < c.anchor() + c.length())
          in_the_way.push_back(other);
      for (uint64_t other : want)
        if (companion_only(other) && other >= site->anchor && other < site->end()) in_the_way.push_back(other);
      for (uint64_t other : in_the_way) TRY(evict_companion(other, "in the way of a probe"));
    }
    bool overlap = inserted.lower_bound(site->anchor) != inserted.lower_bound(site->end());
    for (const auto& [other, c] : counters)
      if (other != pc && c.anchor() < site->end() && site->anchor < c.anchor() + c.length()) overlap = true;
    // Another probe's pc among the bytes to move would never be reached.
    for (uint64_t other : want)
      if (other != pc && other >= site->anchor && other < site->end() && (companion || !companion_only(other)))
        overlap = true;
    if (overlap) {
      refuse("a breakpoint or another counter lies in the bytes to move");
      continue;
    }
    if (session_patch && session_patch->first < site->end() && site->anchor < session_patch->second) {
      refuse("the checkpoint's patched breakpoint lies there");
      continue;
    }
    // The tracee inside the bytes to move: the debug register counts this
    // resumption, the stub goes in at a later one (a companion has no
    // debug register: not known in this window).
    const uint64_t rip = pc_now();
    if (rip > site->anchor && rip < site->end() && (rip != pc || stepping)) {
      if (companion) drop_companion(pc, "the tracee stands in its moved bytes");
      continue;
    }
    std::vector<uint8_t> code(std::max<uint64_t>(32, site->length));
    if (!task.read_memory(RemoteAddr(site->anchor), code).ok()) {
      if (companion) drop_companion(pc, "its code is not readable");
      continue;
    }
    hide_traps(site->anchor, code);
    Result<CountingPatch> patch = CountingPatch::install(task, *site, code);
    if (!patch.ok()) {
      refuse(patch.error().message);
      continue;
    }
    SLSDBG_DEBUG("timeline", "counting arrivals at %s in the tracee%s", hex_addr(pc).c_str(),
                 site->anchored() ? (" (jump at " + hex_addr(site->anchor) + ")").c_str() : "");
    counters.emplace(pc, std::move(*patch));
    counter_used = true;
    changed = true;
  }
  if (changed) {
    TRY(assign_slots());
    TRY(apply_debug_registers());
  }
  // Written at every resumption: a rescue copy of the session holds the
  // page as it was when the copy was made.
  for (auto& [pc, c] : counters) {
    uint64_t limit = 0;
    if (target && target->pc == pc && cursor == target->event && target->n > target_count)
      limit = target->n - target_count;
    TRY(c.set_limit(task, limit));
  }
  return ok_status();
}

// The target's counter reached its limit in the target's own event window:
// that arrival is the target, a moment of this segment, so it precedes the
// checkpoint at the segment's end.
bool Timeline::Impl::stop_before_segment_end(process::Task& task, const siginfo_t& si) {
  if (si.si_code != SI_KERNEL || !target || target->checkpoint != segment || cursor != target->event) return false;
  auto c = counters.find(target->pc);
  auto r = task.regs();
  return c != counters.end() && r.ok() && r->rip == c->second.reached_rip();
}

// A target of this segment not reached yet: the run stops there, before the
// checkpoint. Not in a replay again after counting failed (counted_retry).
bool Timeline::Impl::holds_checkpoint() {
  return target && target->checkpoint == segment && cursor <= target->event && target_count < target->n &&
         counting_allowed();
}

void Timeline::Impl::close_window() {
  if (counted_bps.empty()) return;
  std::optional<Moment> hit;
  int ran = 0;
  for (uint64_t pc : counted_bps) {
    auto it = bp_count.find(pc);
    const uint64_t landing = landed_bp && *landed_bp == pc ? 1 : 0;
    if (it == bp_count.end() || it->second <= landing) continue;
    ran++;
    hit = Moment{segment, cursor, pc, it->second};
  }
  if (ran > 1) counted_bp_refused = true;  // which of them ran last is not known
  if (hit) last_counted_hit = hit;
  landed_bp.reset();
}

// A reverse continue's scan with the user's breakpoints counted in the
// tracee instead of trapping at each hit: the last hit is the last event
// window where one of them ran, at its count there. Not usable when a
// breakpoint could not be counted, or two ran in that window (their order
// is not known): the caller scans again with traps.
Result<Timeline::Impl::CountedScan> Timeline::Impl::scan_counted(uint64_t first, uint64_t last,
                                                                  std::optional<Moment> until) {
  if (counting_off || counting_by_trap() || user.breakpoints.empty() || !user.watches.empty()) return CountedScan{};
  configure_scan(TrapSet{}, until);
  counted_bps = user.breakpoints;
  counted_bp_refused = false;
  landed_bp.reset();
  last_counted_hit.reset();
  hits.clear();
  ordinal = 0;
  struct Done {
    Impl& t;
    ~Done() {
      t.counted_bps.clear();
      t.collect = false;
      t.flow_limit = UINT64_MAX;
    }
  } done{*this};
  TRY(fresh(first, SnapshotCache::Use::IfPresent));
  // The landing at checkpoint `first`'s pc is a hit before the scan's end
  // unless it is that end (collect_landing_hit).
  if (why != PauseWhy::Target && !same_as_next(first)) landed_bp.reset();
  // Breakpoints whose code the stub cannot move (a `ret` within 5 bytes:
  // ld.so's _dl_debug_state, GDB's shlib-event breakpoint) keep their int3
  // and are collected as hits; the rarely hit ones then cost little.
  for (uint64_t pc : user.breakpoints) {
    uint8_t probe[1];
    if (!session->task().read_memory(RemoteAddr(pc), probe).ok()) continue;  // not mapped yet: counted later
    if (plan_patch_site(pc, code_reader()).ok()) continue;
    counted_bps.erase(pc);
    active.breakpoints.insert(pc);
  }
  if (!active.breakpoints.empty()) {
    TRY(insert_breakpoint_bytes());
    for (uint64_t pc : active.breakpoints)
      if (inserted.count(pc)) {
        bp_valid.insert(pc);
        if (pc_now() == pc && cursor == 0) bp_count[pc] = 1;  // the landing
        collect_landing_hit(pc);
      }
  }
  CountedScan out;
  if (why != PauseWhy::Target) {
    flow_limit = last;
    DriveResult d = TRY(drive(true));
    if (d.halt == Halt::Diverged) return Error::msg(d.divergence ? d.divergence->describe() : "replay diverged");
    if (d.halt == Halt::Paused && why == PauseWhy::TargetMissed)
      return Error::msg("internal: the current moment was not found again in segment " + std::to_string(last));
    TRY(fold_counter());
    // The target's own arrival is not a hit before it.
    if (d.halt == Halt::Paused && why == PauseWhy::Target && counted_bps.count(target->pc) && bp_count[target->pc] > 0)
      bp_count[target->pc]--;
    close_window();
  }
  out.usable = !counted_bp_refused;
  out.last = last_counted_hit;
  // The last int3 hit against the last counted window: the later event
  // window wins; within one window their order is unknown.
  const Hit* trapped = nullptr;
  for (const Hit& h : hits)
    if (h.why == PauseWhy::Breakpoint) trapped = &h;
  if (trapped) {
    if (!trapped->moment) {
      out.usable = false;
    } else if (!out.last || std::pair(trapped->moment->checkpoint, trapped->moment->event) >
                                std::pair(out.last->checkpoint, out.last->event)) {
      out.last = trapped->moment;
    } else if (std::pair(trapped->moment->checkpoint, trapped->moment->event) ==
               std::pair(out.last->checkpoint, out.last->event)) {
      out.usable = false;
    }
  }
  return out;
}

template <class F>
auto Timeline::Impl::counted_retry(const char* what, F once) -> decltype(once()) {
  if (counting_off) return once();
  counter_used = false;
  auto r = once();
  if (r.ok() || !counter_used) return r;
  SLSDBG_INFO("timeline", "%s again with debug-register probes (in-process counting failed: %s)", what,
              r.error().message.c_str());
  const CountingOff guard(*this, true);
  return once();
}

Status Timeline::Impl::reach_base(const Base& b, std::optional<uint64_t> probe_pc) {
  return counted_retry("reaching a moment", [&] { return reach_base_once(b, probe_pc); });
}

Status Timeline::Impl::reach(const Path& p, std::optional<uint64_t> probe_pc) {
  return counted_retry("replaying a path", [&] { return reach_once(p, probe_pc); });
}

Result<std::vector<Hit>> Timeline::Impl::scan(uint64_t first, uint64_t last, std::optional<Moment> until) {
  return counted_retry("scanning", [&] { return scan_once(first, last, until); });
}

Result<std::vector<Hit>> Timeline::Impl::scan_window(const Moment& from, const Moment& c) {
  return counted_retry("scanning a window", [&] { return scan_window_once(from, c); });
}

Result<std::vector<Hit>> Timeline::Impl::scan_capped(const Moment& c, size_t cap) {
  return counted_retry("scanning", [&] { return scan_capped_once(c, cap); });
}

}  // namespace slsdbg::replay
