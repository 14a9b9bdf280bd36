// The recorded CPU-time hint (checkpoint k+1's cpu_since_event_ns) says how
// much CPU the segment's tail after its last event took when recorded. Most
// of that tail runs here with nothing armed, at native speed (the patch's
// trampoline costs each visit of a hot loop's pc); the patch goes in only
// for the rest. A fork of the tracee is made first: any stop during the
// head other than its CPU-time alarm (a trap, a syscall past the
// checkpoint, an exit) is not judged, the copy takes over and the run goes
// on as if no head had run. A head that ran past the checkpoint without a
// stop leaves the patch unmatched: its (tight) budget then runs out and the
// rescue copy (the same copy) replays the tail the exact way. A second
// part, sized by a value counting toward the checkpoint (head_progress.h),
// then runs most of what the first left (40% of the tail at the
// trampoline's 2.5x in a tight -O0 loop before; about 5% now).
#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>

#include "common/log.h"
#include "engine/replay/head_second_part.h"
#include "engine/replay/head_size.h"
#include "engine/replay/segment_run.h"
#include "engine/replay/tracee_fork.h"
#include "process/task_clock.h"
#include "process/x86_insn.h"

namespace slsdbg::replay {

void ReplaySession::SegmentRun::note_replay_ratio(uint64_t patched_ns) {
  if (!hint_ || *hint_ < kMinHeadNs) return;  // short tails say little
  note_ratio(static_cast<double>(head_ns_ + patched_ns) / static_cast<double>(*hint_));
}

Result<uint64_t> ReplaySession::SegmentRun::run_unpatched_head() {
  RescueCopy& copy = head_copy_;
  head_ns_ = 0;
  // Only with an observer (the Timeline's runs), whose patched run keeps the
  // head's copy as its rescue: a head past the checkpoint then costs the
  // copy. Without one (replay --check) it would cost a restore of checkpoint k.
  if (!s_.observer_ || !head_allowed_ || !hint_ || s_.patch_failures_ > 0) return uint64_t{0};
  const uint64_t head = head_ns_for(*hint_);
  if (head == 0) return uint64_t{0};
  Result<bool> shared = has_shared_writable_mapping(task_.tgid());
  if (!shared.ok() || *shared) return uint64_t{0};  // the copy would share it
  TRY(s_.observer_->before_copy(task_));
  user_regs_struct now = TRY(task_.regs());
  now.orig_rax = static_cast<uint64_t>(-1);  // the copy is not inside a syscall
  now.rip = s_.observer_->copy_start_pc(now.rip);
  const uint64_t mask = TRY(task_.signal_mask());
  const std::vector<uint64_t> start = progress_values(
      now, target_.rsp, [this](uint64_t a, std::span<uint8_t> out) { return task_.read_memory(RemoteAddr(a), out); });
  Result<process::Task> fork = fork_tracee(task_, now, mask);
  if (!fork.ok()) {
    SLSDBG_DEBUG("replay", "no copy, no unpatched head: %s", fork.error().message.c_str());
    return uint64_t{0};
  }
  copy.hold(std::move(*fork));
  // Armed after the fork: the injected clone runs on the tracee's clock.
  process::WaitResult w;
  const std::optional<bool> reached = TRY(run_for_cpu(head, w));
  if (!reached) return uint64_t{0};  // the copy still serves as the patch's rescue
  if (*reached) {
    SLSDBG_DEBUG("replay", "checkpoint %llu: %llu us of %llu us ran unpatched", (unsigned long long)seg_.value + 1,
                 (unsigned long long)head / 1000, (unsigned long long)*hint_ / 1000);
    head_ns_ = head;
    TRY(run_second_head(start));
    return head_ns_;
  }
  SLSDBG_DEBUG("replay", "segment %llu: the unpatched head stopped early (stop kind %d, signal %d); going on from its copy",
               (unsigned long long)seg_.value, static_cast<int>(w.kind), w.signo);
  note_ratio(0.5 * static_cast<double>(head) / static_cast<double>(*hint_));  // too long, maybe
  back_to_head_copy();
  return uint64_t{0};
}

// After the head's first part (head_ns_ of CPU): a second part sized by a
// value counting toward the checkpoint (head_second_part.h). A value not
// short of its target after it: the run goes on from the head's copy, as
// after a head that stopped early.
Status ReplaySession::SegmentRun::run_second_head(const std::vector<uint64_t>& start) {
  const CheckpointId next(seg_.value + 1);
  SecondPartRun io;
  io.regs = [this] { return task_.regs(); };
  io.live = [this](uint64_t a, std::span<uint8_t> out) { return task_.read_memory(RemoteAddr(a), out); };
  io.recorded = [this, next](uint64_t a, std::span<uint8_t> out) { return s_.reader_.read_memory(next, a, out); };
  io.run = [this](uint64_t ns, const char* what) { return run_head_part(ns, what); };
  const std::string where = "checkpoint " + std::to_string(next.value);
  const SecondPart part = TRY(run_second_part(target_, head_ns_, *hint_, start, io, where));
  switch (part.end) {
    case SecondPartEnd::None: break;
    case SecondPartEnd::Stopped: break;  // run_head_part went back to the copy
    case SecondPartEnd::Ran: head_ns_ += part.ns; break;
    case SecondPartEnd::Past:
      SLSDBG_DEBUG("replay", "%s: going on from the head's copy", where.c_str());
      back_to_head_copy();
      break;
  }
  return ok_status();
}

// One more part of the head, `ns` of CPU time, stopped by its alarm. False:
// it did not run (no alarm), or something else stopped it and the head's
// copy took over.
Result<bool> ReplaySession::SegmentRun::run_head_part(uint64_t ns, const char* what) {
  process::WaitResult w;
  const std::optional<bool> reached = TRY(run_for_cpu(ns, w));
  if (!reached) return false;
  if (*reached) return true;
  SLSDBG_DEBUG("replay", "segment %llu: the head's %s stopped early (stop kind %d, signal %d); going on from its copy",
               (unsigned long long)seg_.value, what, static_cast<int>(w.kind), w.signo);
  back_to_head_copy();
  return false;
}

// Resumes the tracee for `ns` of its CPU time: true if the alarm stopped
// it, false if another stop did (in `w`), nullopt if no alarm could be armed
// (it did not run).
Result<std::optional<bool>> ReplaySession::SegmentRun::run_for_cpu(uint64_t ns, process::WaitResult& w) {
  Result<UniqueFd> alarm = process::arm_cpu_time_alarm(task_.raw_tid(), ns);
  if (!alarm.ok()) return std::optional<bool>();
  TRY(s_.observer_ ? s_.observer_->resume(task_, 0) : task_.cont(0));
  w = TRY(task_.wait());
  bool reached = false;
  if (w.kind == process::StopKind::SignalDelivery && w.signo == SIGTRAP) {
    Result<siginfo_t> si = task_.siginfo();
    reached = si.ok() && process::is_cpu_time_alarm(*si);
  }
  alarm->reset();  // a second alarm queued meanwhile is dropped as stale later
  return std::optional<bool>(reached);
}

void ReplaySession::SegmentRun::back_to_head_copy() {
  process::Task back = head_copy_.take();
  task_.kill_and_reap();
  task_ = std::move(back);
  carry_debug_registers();
  outcome_.reruns++;
  head_ns_ = 0;
}

// A head ends wherever its alarm fires, a third of the time inside a tight
// loop's moved bytes. Stepping out keeps the head's copy as the patched
// run's rescue; a stop other than the step's trap (or a `syscall` to step)
// puts the copy back instead, where no head ran.
Result<user_regs_struct> ReplaySession::SegmentRun::leave_site_after_head(const PatchSite& site,
                                                                        user_regs_struct now) {
  auto inside = [&](const user_regs_struct& r) {
    return r.rip > site.anchor && r.rip < site.end() && !(site.anchored() && r.rip == site.pc);
  };
  constexpr int kMaxSteps = 16;  // the moved bytes hold a few instructions
  for (int i = 0; inside(now) && i < kMaxSteps; i++) {
    uint8_t code[2] = {0, 0};
    const bool syscall = task_.read_memory(RemoteAddr(now.rip), code).ok() && process::is_syscall_insn(code);
    if (syscall) break;
    TRY(task_.singlestep());
    process::WaitResult w = TRY(task_.wait());
    if (w.kind != process::StopKind::SignalDelivery || w.signo != SIGTRAP) break;
    now = TRY(task_.regs());
  }
  if (!inside(now)) return now;
  SLSDBG_DEBUG("replay", "checkpoint %llu: the head ended inside the patch's bytes; going on from its copy",
               (unsigned long long)seg_.value + 1);
  back_to_head_copy();
  return task_.regs();
}

}  // namespace slsdbg::replay
