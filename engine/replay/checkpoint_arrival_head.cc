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
#include <mutex>
#include <optional>
#include <string>

#include "common/log.h"
#include "engine/replay/head_progress.h"
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

// The values a head's progress is read from (head_progress.h): the general
// registers but rsp, then the stack words around the checkpoint's rsp (a
// -O0 loop's index; below rsp: a leaf function's red zone). Registers only
// when the words cannot be read.
constexpr uint64_t kBelowRsp = 128;
constexpr uint64_t kAboveRsp = 384;
constexpr size_t kRegisterValues = 15;

template <class Read>
std::vector<uint64_t> progress_values(const user_regs_struct& r, uint64_t rsp, Read read) {
  std::vector<uint64_t> v{r.rax, r.rbx, r.rcx, r.rdx, r.rsi, r.rdi, r.rbp, r.r8,
                          r.r9,  r.r10, r.r11, r.r12, r.r13, r.r14, r.r15};
  std::vector<uint64_t> words((kBelowRsp + kAboveRsp) / 8);
  const std::span<uint8_t> bytes(reinterpret_cast<uint8_t*>(words.data()), words.size() * 8);
  if (read(rsp - kBelowRsp, bytes).ok()) v.insert(v.end(), words.begin(), words.end());
  return v;
}

// A second part shorter than this gains less than its stop costs.
constexpr uint64_t kMinSecondNs = 1'000'000;

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

// After the head's first part (head_ns_ of CPU): values that count their
// way to the checkpoint say how much of the tail is left; a probe of a
// tenth of that keeps those that move on at their rate, and a last part
// runs 90% of what is then left unpatched (SLSDBG_REPLAY_HEAD_SECOND:
// another share, 0: none). The value must still be short of its target
// after it; else the run goes on from the head's copy, as after a head
// that stopped early.
Status ReplaySession::SegmentRun::run_second_head(const std::vector<uint64_t>& start) {
  double share = 0.9;
  if (const char* e = std::getenv("SLSDBG_REPLAY_HEAD_SECOND")) share = std::strtod(e, nullptr);  // tests of its fallback
  if (share <= 0) return ok_status();
  const uint64_t first = head_ns_;
  const auto live = [this](uint64_t a, std::span<uint8_t> out) { return task_.read_memory(RemoteAddr(a), out); };
  const CheckpointId next(seg_.value + 1);
  const auto recorded = [this, next](uint64_t a, std::span<uint8_t> out) { return s_.reader_.read_memory(next, a, out); };
  const std::vector<uint64_t> target = progress_values(target_, target_.rsp, recorded);
  std::vector<uint64_t> now = progress_values(TRY(task_.regs()), target_.rsp, live);
  // A counter or a pointer moves at most this far over the tail: 64 per ns of its CPU time.
  const uint64_t max_distance = 64 * *hint_;
  const std::vector<ProgressGuess> candidates = progress_candidates(start, now, target, head_fraction(), max_distance);
  if (candidates.empty()) return ok_status();
  double f = 0;
  for (const ProgressGuess& c : candidates) f = std::max(f, c.fraction);
  const double rest = static_cast<double>(first) * (1 - f) / f;
  const auto probe = static_cast<uint64_t>(std::max(0.1 * rest, 300'000.0));
  if (static_cast<double>(probe) > 0.5 * rest) return ok_status();  // too little left to gain from
  if (!TRY(run_head_part(probe, "probe"))) return ok_status();
  now = progress_values(TRY(task_.regs()), target_.rsp, live);
  const std::optional<ProgressGuess> guess = confirm_progress(candidates, start, now, target, first, probe);
  const uint64_t ran = first + probe;
  head_ns_ = ran;
  if (!guess) return ok_status();
  const double left = static_cast<double>(ran) * (1 - guess->fraction) / guess->fraction;
  const double last_d = share * left - 150'000.0;
  if (last_d < static_cast<double>(kMinSecondNs)) return ok_status();
  const auto last = static_cast<uint64_t>(last_d);
  if (!TRY(run_head_part(last, "last part"))) return ok_status();
  const char* what = guess->index < kRegisterValues ? "register" : "stack word";
  const std::vector<uint64_t> later = progress_values(TRY(task_.regs()), target_.rsp, live);
  const double at = guess->index < later.size()
                        ? progress_fraction(start[guess->index], later[guess->index], target[guess->index])
                        : -1;
  if (at > guess->fraction && at < 1) {
    SLSDBG_DEBUG("replay", "checkpoint %llu: %llu us more ran unpatched (a %s %.3f -> %.3f of its way)",
                 (unsigned long long)seg_.value + 1, (unsigned long long)(probe + last) / 1000, what, f, at);
    head_ns_ = ran + last;
    return ok_status();
  }
  SLSDBG_DEBUG("replay", "checkpoint %llu: after the head's last part the %s stood at %.3f of its way, not short "
               "of it; going on from the head's copy", (unsigned long long)seg_.value + 1, what, at);
  back_to_head_copy();
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
