// Once the log is consumed nothing but the checkpoint is left to find, often
// in a hot loop: reach it through the patched breakpoint (PatchedArrival),
// under a CPU-time budget from the recorder's hint (checkpoint k+1's
// cpu_since_event_ns). With an observer only where it cannot see the
// patch, and with a fork of the tracee kept as a rescue: a replay again
// from checkpoint k would show the observer the segment's events twice.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>

#include "common/log.h"
#include "engine/replay/relay_site.h"
#include "engine/replay/replay_restore.h"
#include "engine/replay/segment_run.h"
#include "engine/replay/tracee_fork.h"
#include "process/task_clock.h"

namespace slsdbg::replay {

CodeReader ReplaySession::SegmentRun::code_reader() {
  return [this](uint64_t addr, std::span<uint8_t> out) {
    if (!task_.read_memory(RemoteAddr(addr), out).ok()) return false;
    if (s_.observer_) s_.observer_->hide_traps(addr, out);
    return true;
  };
}

bool ReplaySession::SegmentRun::observer_allows_site() {
  // The observer's counter stubs first, as its resumption places them: a
  // run from a checkpoint standing at a pc the Timeline counts steps over
  // that arrival from the stub's copy, which allows the patch; asked before
  // the stub was in, it refused the only resumption of the run, and the
  // checkpoint cost a #DB per visit (watch_far_loop: 12*10^6, 2 minutes).
  if (!s_.observer_->before_copy(task_).ok()) return false;
  if (s_.observer_->allows_patch(patch_site_->anchor, patch_site_->end())) return true;
  if (anchor_tried_ || patch_site_->anchored()) return false;
  // A breakpoint on the line after a hot loop whose conditional jump the
  // checkpoint stands on: the jump at pc would cover its int3, and every
  // visit would cost a #DB. An anchor before pc (the loop's compare) ends
  // at pc's instruction.
  anchor_tried_ = true;
  Result<PatchSite> anchored = plan_anchored_site(target_.rip, code_reader());
  if (!anchored.ok() || !s_.observer_->allows_patch(anchored->anchor, anchored->end())) return false;
  SLSDBG_DEBUG("replay", "checkpoint %llu: the patch goes at the anchor %s, clear of the debugger's breakpoints",
               (unsigned long long)seg_.value + 1, hex(anchored->anchor).c_str());
  patch_site_ = *anchored;
  return true;
}

// `deliver` is the signal the coming resumption delivers (a fork would not).
Status ReplaySession::SegmentRun::try_patch(int deliver) {
  const DebugRegisterArrival* d = armed<DebugRegisterArrival>();
  if (armed<PatchedArrival>() || (d && d->then_patch) ||
      (patch_ != PatchState::Allowed && patch_ != PatchState::AskAgain) || s_.patch_off_ || !awaits_checkpoint() ||
      target_at_ == RegsAt::InsideRepString)
    return ok_status();
  const char* mode = std::getenv("SLSDBG_REPLAY_PATCH");  // "off": hardware breakpoint only (measurements)
  if (mode && std::string(mode) == "off") return ok_status();
  if (s_.patch_failures_ > 0 && s_.dregs_.holds(DrUse::Watch)) return ok_status();
  if (!patch_site_) {
    Result<PatchSite> site = plan_checkpoint_site(target_.rip, code_reader());
    if (!site.ok()) {
      SLSDBG_DEBUG("replay", "checkpoint %llu: no patched breakpoint at %s: %s", (unsigned long long)seg_.value + 1,
                   hex(target_.rip).c_str(), site.error().message.c_str());
      patch_ = PatchState::SiteRefused;  // not planned again in this run
      return ok_status();
    }
    patch_site_ = *site;
  }
  if (s_.observer_) {
    if (deliver || !observer_allows_site()) {
      patch_ = PatchState::AskAgain;  // go() asks again
      return ok_status();
    }
    Result<bool> shared = has_shared_writable_mapping(task_.tgid());
    if (!shared.ok() || *shared) return ok_status();  // the rescue fork would share it
  }
  const PatchSite site = *patch_site_;
  // Most of the tail by the recorder's hint with nothing armed (checkpoint_arrival_head.cc).
  // Its copy is the rescue below (the observer has seen nothing since).
  uint64_t head_ns = TRY(run_unpatched_head());
  // The tracee stands inside the bytes the jump would replace (back from a
  // signal handler into the loop): patch at its next arrival at pc, found
  // by a plain debug-register breakpoint (one #DB). Not after a head, which
  // may have run past the checkpoint: that arrival would be a later one
  // and the copy made there a rescue that never reaches it.
  user_regs_struct now = TRY(task_.regs());
  if (head_ns) {
    now = TRY(leave_site_after_head(site, now));
    head_ns = head_ns_;  // 0: back at the head's copy
  }
  if (now.rip > site.anchor && now.rip < site.end() && !(site.anchored() && now.rip == site.pc)) {
    SLSDBG_DEBUG("replay", "checkpoint %llu: patch deferred to the next arrival at %s", (unsigned long long)seg_.value + 1,
                 hex(target_.rip).c_str());
    head_copy_.kill();
    return insert_breakpoint(/*then_patch=*/true);
  }
  const std::optional<uint64_t> hint = hint_;
  // SLSDBG_REPLAY_HINT_SCALE scales the hint (tests of a wrong hint).
  double scale = 1.0;
  if (const char* sc = std::getenv("SLSDBG_REPLAY_HINT_SCALE")) scale = std::strtod(sc, nullptr);
  // The trampoline makes each visit of the pc several times slower: 20x,
  // plus a margin for short segments; no hint (older recordings): 10 s.
  uint64_t budget = static_cast<uint64_t>(
      scale * (hint ? 20.0 * static_cast<double>(*hint) + 20'000'000.0 : 10'000'000'000.0));
  for (int i = 0; i < s_.patch_failures_; i++) budget *= 4;
  // After a head, only the rest of the hint is left: a head that overshot
  // the checkpoint is found out soon. 8x: the observer's counter stubs in
  // the same loop as the trampoline make a tight -O0 loop 6x slower.
  if (head_ns && hint && *hint > head_ns) budget = std::min(budget, 8 * (*hint - head_ns) + 10'000'000);
  RescueCopy rescue;
  if (s_.observer_ && head_copy_) {
    rescue = std::move(head_copy_);
  } else if (s_.observer_) {
    // The copy holds what the observer puts in at its resumption (the
    // Timeline's counter stubs): a run that goes on from it counts on.
    TRY(s_.observer_->before_copy(task_));
    now.orig_rax = static_cast<uint64_t>(-1);  // the copy is not inside a syscall
    const uint64_t mask = TRY(task_.signal_mask());
    user_regs_struct start = now;
    start.rip = s_.observer_->copy_start_pc(now.rip);
    Result<process::Task> copy = fork_tracee(task_, start, mask);
    if (!copy.ok()) {
      SLSDBG_DEBUG("replay", "no rescue copy, no patched breakpoint: %s", copy.error().message.c_str());
      return ok_status();
    }
    rescue = RescueCopy(std::move(*copy));
  }
  const PatchCompare compare = target_at_ == RegsAt::RewoundSyscall ? PatchCompare::AllButRcxR11 : PatchCompare::All;
  // SLSDBG_REPLAY_PATCH=miss: a trampoline that never matches (tests of the
  // recovery from a patch that broke the program or missed the checkpoint).
  user_regs_struct compared = target_;
  if (mode && std::string(mode) == "miss") compared.rax ^= 1;
  // SLSDBG_REPLAY_PATCH=refuse: every install fails (tests of the fallback breakpoint).
  Result<PatchedBreakpoint> patch = mode && std::string(mode) == "refuse"
                                        ? Result<PatchedBreakpoint>(Error::msg("refused by SLSDBG_REPLAY_PATCH=refuse"))
                                        : PatchedBreakpoint::install(task_, site, compared, compare, mem_checks_);
  patch_regs_ = compared;
  patch_compare_ = compare;
  if (!patch.ok()) {
    SLSDBG_DEBUG("replay", "checkpoint %llu: no patched breakpoint: %s", (unsigned long long)seg_.value + 1,
                 patch.error().message.c_str());
    return ok_status();
  }
  SLSDBG_DEBUG("replay", "checkpoint %llu: patched breakpoint at %s%s, CPU budget %llu us (hint %s)%s",
               (unsigned long long)seg_.value + 1, hex(target_.rip).c_str(),
               site.anchored() ? (" (jump at " + hex(site.anchor) + ")").c_str()
               : site.relay    ? (" (relayed through " + hex(site.relay) + ")").c_str()
                               : "",
               (unsigned long long)budget / 1000, hint ? std::to_string(*hint / 1000).c_str() : "none",
               rescue ? ", rescue copy kept" : "");
  // Armed last: the injected fork and mmap above run on the tracee's clock.
  Result<UniqueFd> alarm = process::arm_cpu_time_alarm(task_.raw_tid(), budget);
  if (!alarm.ok()) {
    SLSDBG_DEBUG("replay", "no CPU-time alarm, no patched breakpoint: %s", alarm.error().message.c_str());
    return patch->remove(task_);
  }
  TRY(remove_breakpoint());
  arrival_.emplace<PatchedArrival>(PatchedArrival{std::move(*patch), std::move(*alarm), budget, std::move(rescue)});
  return ok_status();
}

// The tracee as it was when the patch went in replaces the current one,
// with no patch, budget or breakpoint of this run left armed.
void ReplaySession::SegmentRun::take_rescue() {
  process::Task copy = armed<PatchedArrival>()->rescue.take();
  task_.kill_and_reap();
  task_ = std::move(copy);
  arrival_.emplace<NothingArmed>();  // the patch and its budget went with the process
  carry_debug_registers();
  outcome_.reruns++;
}

void ReplaySession::SegmentRun::carry_debug_registers() {
  Status st = s_.dregs_.apply(task_.raw_tid());
  if (!st.ok()) SLSDBG_DEBUG("replay", "debug registers into the copy: %s", st.error().message.c_str());
}

void ReplaySession::SegmentRun::drop_rescue() {
  if (PatchedArrival* p = armed<PatchedArrival>()) p->rescue.kill();
}

// A trap for the observer while patched. It must not see the patch, and the
// run may already have passed the checkpoint unmatched (a trampoline that
// failed), which nothing could tell afterwards. So go on from the copy made
// when the patch went in (the observer has seen nothing since; its int3s are
// in the copy's memory, and it had no debug register in use) with the
// hardware breakpoint: the trap comes again if it lies before the
// checkpoint. True: the trap is to be dropped.
Result<bool> ReplaySession::SegmentRun::drop_patch() {
  patch_ = PatchState::Dropped;
  if (!armed<PatchedArrival>()->rescue) {
    TRY(remove_patch());
    TRY(arm_breakpoint());
    return false;
  }
  SLSDBG_DEBUG("replay", "segment %llu: a trap for the observer while patched; going on from the rescue copy",
               (unsigned long long)seg_.value);
  take_rescue();
  counted_at_pc_ = false;
  TRY(reach_or_arm());
  // The copy counted its way to the checkpoint without meeting the trap:
  // the trap lay past it, so the trampoline ran past it unmatched.
  if (std::exchange(counted_at_pc_, false)) ReplaySession::note_patch_miss();
  return true;
}

// The patched run failed with an observer: go on from the copy made when the
// patch went in (the observer has seen nothing since), patched again with a
// larger budget if only the budget ran out, else with the hardware breakpoint.
Status ReplaySession::SegmentRun::use_rescue() {
  // With a watchpoint armed each retry would meet its writes again: the
  // breakpoint instead (try_patch does not patch with one after a failure).
  const bool retry = patch_ == PatchState::FailedByBudget && ++s_.patch_failures_ < kPatchAttempts &&
                     !s_.dregs_.holds(DrUse::Watch);
  SLSDBG_DEBUG("replay", "segment %llu: patched run failed; going on from the rescue copy (%s)",
               (unsigned long long)seg_.value, retry ? "larger CPU budget" : "hardware breakpoint");
  ReplaySession::note_patch_miss();
  take_rescue();
  if (proof_ == TrampolineProof::Proven) proof_ = TrampolineProof::Refused;  // the observer changed the run
  patch_ = retry ? PatchState::Allowed : PatchState::Dropped;
  outcome_.end = SegmentEnd::Diverged;
  outcome_.divergence.reset();
  TRY(maybe_patch());
  return go();
}

// Puts the code back; the budget and the rescue copy go too.
Status ReplaySession::SegmentRun::remove_patch() {
  PatchedArrival* p = armed<PatchedArrival>();
  if (!p) return ok_status();
  Status st = p->patch.remove(task_);
  arrival_.emplace<NothingArmed>();
  return st;
}

// The trampoline's int3: the registers equal the target's (rip aside).
Result<ReplaySession::SegmentRun::Next> ReplaySession::SegmentRun::on_patched_match(user_regs_struct& r) {
  user_regs_struct at = r;
  at.rip = target_.rip;
  if (TRY(on_breakpoint(at)) == Next::Done) {
    uint64_t cpu_ns = 0;  // the alarm counts the patched run's CPU time
    if (::read(armed<PatchedArrival>()->budget.get(), &cpu_ns, sizeof cpu_ns) == static_cast<ssize_t>(sizeof cpu_ns)) {
      const std::optional<uint64_t> hint = hint_;
      note_replay_ratio(cpu_ns);
      SLSDBG_DEBUG("replay", "checkpoint %llu reached by the patched breakpoint after %llu us of CPU (hint %s us)",
                   (unsigned long long)seg_.value + 1, (unsigned long long)cpu_ns / 1000,
                   hint ? std::to_string(*hint / 1000).c_str() : "none");
    }
    outcome_.patched = true;
    TRY(remove_patch());
    return Next::Done;
  }
  TRY(refit_patch(r));
  TRY(go());  // rip is past the int3: the displaced code runs on
  return Next::Resume;
}

// A visit with the target's registers whose memory differed: the trampoline
// also compares the word that differed, so the next such visits run on
// without a trap (an interpreter's loop: mawk's `for (...) s += i` trapped
// at every iteration). The tracee is at the int3 with pc's state; the
// patch goes in again from pc, keeping the CPU-time budget.
Status ReplaySession::SegmentRun::refit_patch(const user_regs_struct& r) {
  PatchedArrival* p = armed<PatchedArrival>();
  if (!p || !patch_site_ || !last_differing_word_ || mem_checks_.size() >= kMaxMemChecks) return ok_status();
  const MemCheck word = *std::exchange(last_differing_word_, std::nullopt);
  for (const MemCheck& m : mem_checks_)
    if (m.addr == word.addr) return ok_status();
  user_regs_struct at = r;
  at.rip = target_.rip;
  TRY(p->patch.remove(task_));
  TRY(task_.set_regs(at));
  mem_checks_.push_back(word);
  Result<PatchedBreakpoint> patch = PatchedBreakpoint::install(task_, *patch_site_, patch_regs_, patch_compare_, mem_checks_);
  if (!patch.ok()) {
    // The plain breakpoint then finds the checkpoint, a trap per visit.
    SLSDBG_DEBUG("replay", "checkpoint %llu: the patch with %zu memory words did not go in: %s",
                 (unsigned long long)seg_.value + 1, mem_checks_.size(), patch.error().message.c_str());
    arrival_.emplace<NothingArmed>();
    return arm_breakpoint();
  }
  SLSDBG_DEBUG("replay", "checkpoint %llu: the patch compares %zu memory word(s) too (last %s)",
               (unsigned long long)seg_.value + 1, mem_checks_.size(), hex(word.addr).c_str());
  p->patch = std::move(*patch);
  return ok_status();
}

}  // namespace slsdbg::replay
