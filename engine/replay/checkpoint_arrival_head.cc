// The recorded CPU-time hint (checkpoint k+1's cpu_since_event_ns) says how
// much CPU the segment's tail after its last event took when recorded. Most
// of that tail runs here with nothing armed, at native speed (the patch's
// trampoline costs each visit of a hot loop's pc); the patch goes in only
// for the rest. A fork of the tracee is made first: any stop during the
// head other than its CPU-time alarm (a trap, a syscall past the
// checkpoint, an exit) is not judged, the copy takes over and the run goes
// on as if no head had run. A head that ran past the checkpoint without a
// stop leaves the patch unmatched: its (tight) budget then runs out and the
// rescue copy (the same copy) replays the tail the exact way.
#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>

#include "common/log.h"
#include "engine/replay/segment_run.h"
#include "engine/replay/tracee_fork.h"
#include "process/task_clock.h"
#include "process/x86_insn.h"

namespace slsdbg::replay {

namespace {

// Below this the fork costs about what the head saves.
constexpr uint64_t kMinHeadNs = 2'000'000;

// The share of the expected tail run unpatched; SLSDBG_REPLAY_HEAD=0 turns it off.
double head_fraction() {
  if (const char* e = std::getenv("SLSDBG_REPLAY_HEAD")) {
    char* end = nullptr;
    const double f = std::strtod(e, &end);
    if (end != e && f >= 0 && f < 1) return f;
  }
  return 0.6;
}

// Replay's CPU time over the recorder's hint, the least of the last few
// arrivals: the hint also holds the recording's own costs in the tracee
// (write-protect faults of a program that writes memory: rec_memloop's
// tail replays in under half its hint), so the head is sized by what
// replay took, not by the hint alone. Kept across sessions (each batch of a
// reverse scan is a new one); slsdbg replays one recording per process, and
// a wrong guess costs time, never exactness. A reverse scan's second thread
// (timeline_scan_ahead.cc) shares them: hence the lock.
constexpr size_t kRatios = 4;
std::mutex ratios_mu;
double ratios[kRatios];
size_t ratios_seen = 0;

std::optional<double> replay_ratio() {
  const std::lock_guard lock(ratios_mu);
  if (ratios_seen == 0) return std::nullopt;  // the first arrival measures it
  double least = 1.0;
  for (size_t i = 0; i < std::min(ratios_seen, kRatios); i++) least = std::min(least, ratios[i]);
  return least;
}

void note_ratio(double r) {
  const std::lock_guard lock(ratios_mu);
  ratios[ratios_seen++ % kRatios] = r;
}

}  // namespace

void ReplaySession::SegmentRun::note_replay_ratio(uint64_t patched_ns) {
  if (!hint_ || *hint_ < kMinHeadNs) return;  // short tails say little
  note_ratio(static_cast<double>(head_ns_ + patched_ns) / static_cast<double>(*hint_));
}

Result<uint64_t> ReplaySession::SegmentRun::run_unpatched_head() {
  RescueCopy& copy = head_copy_;
  head_ns_ = 0;
  const std::optional<double> ratio = replay_ratio();
  // Only with an observer (the Timeline's runs), whose patched run keeps the
  // head's copy as its rescue: a head past the checkpoint then costs the
  // copy. Without one (replay --check) it would cost a restore of checkpoint k.
  if (!s_.observer_ || !head_allowed_ || !hint_ || !ratio || s_.patch_failures_ > 0) return uint64_t{0};
  const uint64_t head = static_cast<uint64_t>(head_fraction() * *ratio * static_cast<double>(*hint_));
  if (head < kMinHeadNs) return uint64_t{0};
  Result<bool> shared = has_shared_writable_mapping(task_.tgid());
  if (!shared.ok() || *shared) return uint64_t{0};  // the copy would share it
  TRY(s_.observer_->before_copy(task_));
  user_regs_struct now = TRY(task_.regs());
  now.orig_rax = static_cast<uint64_t>(-1);  // the copy is not inside a syscall
  now.rip = s_.observer_->copy_start_pc(now.rip);
  const uint64_t mask = TRY(task_.signal_mask());
  Result<process::Task> fork = fork_tracee(task_, now, mask);
  if (!fork.ok()) {
    SLSDBG_DEBUG("replay", "no copy, no unpatched head: %s", fork.error().message.c_str());
    return uint64_t{0};
  }
  copy.hold(std::move(*fork));
  // Armed after the fork: the injected clone runs on the tracee's clock.
  Result<UniqueFd> alarm = process::arm_cpu_time_alarm(task_.raw_tid(), head);
  if (!alarm.ok()) return uint64_t{0};  // the copy still serves as the patch's rescue
  TRY(s_.observer_ ? s_.observer_->resume(task_, 0) : task_.cont(0));
  process::WaitResult w = TRY(task_.wait());
  bool reached = false;
  if (w.kind == process::StopKind::SignalDelivery && w.signo == SIGTRAP) {
    Result<siginfo_t> si = task_.siginfo();
    reached = si.ok() && process::is_cpu_time_alarm(*si);
  }
  alarm->reset();  // a second alarm queued meanwhile is dropped as stale later
  if (reached) {
    SLSDBG_DEBUG("replay", "checkpoint %llu: %llu us of %llu us ran unpatched", (unsigned long long)seg_.value + 1,
                 (unsigned long long)head / 1000, (unsigned long long)*hint_ / 1000);
    head_ns_ = head;
    return head;
  }
  SLSDBG_DEBUG("replay", "segment %llu: the unpatched head stopped early (stop kind %d, signal %d); going on from its copy",
               (unsigned long long)seg_.value, static_cast<int>(w.kind), w.signo);
  note_ratio(0.5 * static_cast<double>(head) / static_cast<double>(*hint_));  // too long, maybe
  process::Task back = copy.take();
  task_.kill_and_reap();
  task_ = std::move(back);
  carry_debug_registers();
  outcome_.reruns++;
  return uint64_t{0};
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
  process::Task back = head_copy_.take();
  task_.kill_and_reap();
  task_ = std::move(back);
  carry_debug_registers();
  outcome_.reruns++;
  head_ns_ = 0;
  return task_.regs();
}

}  // namespace slsdbg::replay
