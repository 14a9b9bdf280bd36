#include "engine/replay/replay_session.h"

#include <algorithm>

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include <cstddef>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/log.h"
#include "common/signal_name.h"
#include "engine/replay/conditional_breakpoint.h"
#include "engine/replay/dead_stack.h"
#include "engine/replay/fd_placeholders.h"
#include "engine/replay/patch_site.h"
#include "engine/replay/patched_breakpoint.h"
#include "engine/replay/rep_string.h"
#include "engine/replay/replay_helpers.h"
#include "engine/replay/replay_restore.h"
#include "engine/replay/sysbuf_version.h"
#include "engine/replay/syscall_policy.h"
#include "engine/replay/tracee_fork.h"
#include "engine/replay/xsave_noise.h"
#include "engine/restore/restore.h"
#include "process/cpu.h"
#include "process/inject.h"
#include "process/seccomp_filter.h"
#include "process/signal_frame.h"
#include "process/signal_policy.h"
#include "process/syscallbuf_stub.h"
#include "process/syscalls/model.h"
#include "process/task_clock.h"
#include "process/vdso_patch.h"

namespace slsdbg::replay {

namespace {

constexpr uint64_t kPageSize = 4096;
// Patched runs of one segment before the hardware breakpoint alone: CPU
// budgets up to 256x the first.
constexpr int kPatchAttempts = 5;
#ifndef TRAP_PERF
constexpr int TRAP_PERF = 6;  // si_code of a perf sigtrap (asm-generic/siginfo.h)
#endif

std::array<uint64_t, 6> syscall_args(const user_regs_struct& r) { return {r.rdi, r.rsi, r.rdx, r.r10, r.r8, r.r9}; }

bool is_synchronous(const store::Event& ev) {
  if (ev.siginfo.size() < sizeof(siginfo_t)) return false;
  siginfo_t si;
  std::memcpy(&si, ev.siginfo.data(), sizeof si);
  return recorder::classify_signal(si) == recorder::SignalTiming::Synchronous;
}

}  // namespace

std::string Divergence::describe() const {
  return "divergence in segment " + std::to_string(segment.value) + " at event " + std::to_string(event_index) +
         ": expected " + expected + ", replay did " + actual + " (pc " + hex(pc) + ")";
}

bool same_general_registers(const user_regs_struct& a_in, const user_regs_struct& b, std::string* first_difference,
                            RegsAt at) {
  user_regs_struct a = a_in;
  if (at == RegsAt::RewoundSyscall) {
    a.rcx = b.rcx;
    a.r11 = b.r11;
  } else if (at == RegsAt::InsideRepString) {
    a.rcx = b.rcx;
    a.rsi = b.rsi;
    a.rdi = b.rdi;
  }
  constexpr uint64_t kIgnoredFlags = 0x10000 | 0x100;  // RF, TF
#define SLSDBG_CMP(field)                                                                             \
  if (a.field != b.field) {                                                                           \
    if (first_difference) *first_difference = #field " " + hex(a.field) + " != " + hex(b.field); \
    return false;                                                                                     \
  }
  SLSDBG_CMP(rip) SLSDBG_CMP(rsp) SLSDBG_CMP(rbp) SLSDBG_CMP(rax) SLSDBG_CMP(rbx) SLSDBG_CMP(rcx)
  SLSDBG_CMP(rdx) SLSDBG_CMP(rsi) SLSDBG_CMP(rdi) SLSDBG_CMP(r8) SLSDBG_CMP(r9) SLSDBG_CMP(r10)
  SLSDBG_CMP(r11) SLSDBG_CMP(r12) SLSDBG_CMP(r13) SLSDBG_CMP(r14) SLSDBG_CMP(r15)
  SLSDBG_CMP(fs_base) SLSDBG_CMP(gs_base) SLSDBG_CMP(cs) SLSDBG_CMP(ss)
#undef SLSDBG_CMP
  if ((a.eflags & ~kIgnoredFlags) != (b.eflags & ~kIgnoredFlags)) {
    if (first_difference) *first_difference = "eflags " + hex(a.eflags) + " != " + hex(b.eflags);
    return false;
  }
  return true;
}

// One run of segment k: the events, the breakpoint at k+1's pc, the cursor.
class ReplaySession::SegmentRun {
 public:
  SegmentRun(ReplaySession& s) : s_(s), task_(s.task_), seg_(s.k_.value) {}
  ~SegmentRun() { drop_rescue(); }  // a run abandoned after an error
  // Starts the run, or resumes it where an observer paused it.
  Result<SegmentOutcome> run();
  uint64_t cursor() const { return cursor_; }
  uint64_t event_count() const { return events_.size(); }
  // The patched run went wrong (diverged, overran its CPU budget): replay the
  // segment again from checkpoint k.
  bool patch_failed() const { return patch_failed_; }
  bool patch_failed_by_budget() const { return patch_failed_by_budget_; }

 private:
  // What one stop handler decided.
  enum class Next { Resume, Done, Pause };

  Result<Next> begin();
  Result<SegmentOutcome> loop();
  Status go(int signo = 0);
  Result<Next> after_event(const store::Event& ev);
  Result<Next> resume_paused();
  Result<SegmentOutcome> finish_run();

  Status arm_breakpoint();
  Status insert_breakpoint();
  Status remove_breakpoint();
  Status maybe_patch(int deliver = 0);
  Status hold_checkpoint();
  Status try_patch(int deliver);
  Status at_log_end(int deliver = 0);
  Status remove_patch();
  Result<bool> drop_patch();
  void drop_rescue();
  Status use_rescue();
  void take_rescue();
  Result<Next> on_patched_match(user_regs_struct& r);
  Status refit_patch(const user_regs_struct& r);
  void note_differing_word(uint64_t vaddr, std::span<const uint8_t> live, std::span<const uint8_t> recorded);
  Result<Next> on_breakpoint(user_regs_struct& r);
  Result<Next> on_seccomp();
  Result<Next> on_signal(int signo);
  Result<Next> on_exit(const process::WaitResult& w);
  Result<bool> at_next_checkpoint();
  Status read_live_page(uint64_t vaddr, std::span<uint8_t> out);
  std::optional<std::vector<XsaveArea>> noise_areas(uint64_t vaddr, std::span<const uint8_t> live,
                                                    std::span<const uint8_t> recorded);
  struct Settle {
    std::vector<XsaveArea> xsave_areas;
    std::vector<ByteRun> dead_runs;
  };
  bool equal_but_noise(uint64_t vaddr, std::span<const uint8_t> live, std::span<const uint8_t> recorded,
                       Settle& settle);
  Result<bool> step_rep_iterations(user_regs_struct& r);
  Next diverge(uint64_t pc, std::string expected, std::string actual);
  const store::Event* next_event() const { return cursor_ < events_.size() ? &events_[cursor_] : nullptr; }
  std::string expected_here() const { return next_event() ? describe_event(*next_event()) : "the end of the segment's log (" + std::to_string(events_.size()) + " events)"; }

  ReplaySession& s_;
  process::Task& task_;
  SegmentId seg_;
  std::vector<store::Event> events_;
  size_t cursor_ = 0;
  bool has_next_ = false;
  bool next_forced_ = false;
  user_regs_struct target_{};
  RegsAt target_at_ = RegsAt::Anywhere;
  std::optional<RepString> target_rep_;
  std::optional<AddressRange> dead_stack_;  // checkpoint k+1's dead stack (dead_stack.h)
  std::optional<uint64_t> last_differing_page_;
  std::optional<MemCheck> last_differing_word_;  // of the last visit with the target's registers
  std::vector<MemCheck> mem_checks_;             // the patch compares these words too
  user_regs_struct patch_regs_{};                // what the patch compares (the target, or a "miss")
  PatchCompare patch_compare_ = PatchCompare::All;
  bool bp_inserted_ = false;
  int bp_slot_ = -1;  // its debug register (debug_registers.h)
  bool armed_ = false;  // the checkpoint's breakpoint (of whatever kind) went in
  std::optional<ConditionalBreakpoint> conditional_;
  std::optional<PatchedBreakpoint> patched_;
  std::optional<uint64_t> hint_;  // checkpoint k+1's cpu_since_event_ns: the patched run's CPU budget
  UniqueFd budget_;  // the patched run's CPU-time alarm
  bool patch_deferred_ = false;  // waiting at a debug-register breakpoint for rip to leave the bytes the jump would replace
  bool patch_dropped_ = false;   // the observer trapped while patched: no patch again in this run
  bool patch_retry_ = false;     // the observer refused the patch for its next resumption only
  std::optional<PatchSite> patch_site_;  // where the patch would go (patch_site.h)
  bool held_ = false;                    // the observer stops before the checkpoint: nothing armed there
  bool hold_expired_ = false;            // held past its CPU budget: not again in this run
  bool site_refused_ = false;            // the checkpoint's pc has no patch site
  std::optional<process::Task> rescue_;  // with an observer: the tracee as it was when the patch went in
  bool patch_failed_ = false;
  bool patch_failed_by_budget_ = false;
  uint8_t bp_saved_ = 0;
  int pending_signal_ = 0;
  SegmentOutcome outcome_;
  // Observer state across a pause.
  bool started_ = false;
  bool signal_announced_ = false;   // before_signal was asked for the pending signal stop
  int reenter_signal_ = 0;          // paused before a logged signal: handle it again on resume
  int deliver_on_resume_ = 0;       // paused after consuming a signal: deliver it on resume
};

// Resumption goes through the observer when there is one (it may single-step).
Status ReplaySession::SegmentRun::go(int signo) {
  if (held_ && !s_.observer_->holds_checkpoint()) {
    held_ = false;
    budget_.reset();
    TRY(maybe_patch(signo));
  } else if (!held_) {
    TRY(hold_checkpoint());
  }
  // The observer refused the patch for one resumption (a step over the
  // current instruction after a restore, a signal to deliver): ask again
  // once it would allow it, or every visit of the pc costs a #DB.
  if (patch_retry_ && s_.observer_ && signo == 0 && !patched_ && !patch_deferred_ && !patch_dropped_ && patch_site_ &&
      s_.observer_->allows_patch(patch_site_->anchor, patch_site_->end())) {
    patch_retry_ = false;
    TRY(maybe_patch());
  }
  return s_.observer_ ? s_.observer_->resume(task_, signo) : task_.cont(signo);
}

// An event was consumed: the observer may pause right after it.
Result<ReplaySession::SegmentRun::Next> ReplaySession::SegmentRun::after_event(const store::Event& ev) {
  if (s_.observer_ &&
      TRY(s_.observer_->on_event_done(task_, cursor_ - 1, ev)) == RunObserver::Verdict::Pause)
    return Next::Pause;
  TRY(at_log_end());
  TRY(go());
  return Next::Resume;
}

Result<ReplaySession::SegmentRun::Next> ReplaySession::SegmentRun::resume_paused() {
  if (reenter_signal_) {
    const int signo = reenter_signal_;
    reenter_signal_ = 0;
    return on_signal(signo);
  }
  const int signo = deliver_on_resume_;
  deliver_on_resume_ = 0;
  TRY(at_log_end(signo));
  TRY(go(signo));
  return Next::Resume;
}

// A hardware execution breakpoint (a debug register claimed from the
// session's owner, beside the observer's): the program's code stays
// untouched, and the kernel sets RF on the hit, so resuming does not hit it
// again.
Status ReplaySession::SegmentRun::insert_breakpoint() {
  if (bp_inserted_ || !has_next_ || next_forced_) return ok_status();
  bp_slot_ = TRY_CTX(s_.dregs_.claim(DrUse::CheckpointBreakpoint, target_.rip, DrKind::Execute, 1),
                     "the breakpoint of checkpoint " + std::to_string(seg_.value + 1));
  Status st = s_.dregs_.apply(task_.raw_tid());
  if (!st.ok()) {
    s_.dregs_.release(bp_slot_);
    bp_slot_ = -1;
    return st;
  }
  bp_inserted_ = true;
  return ok_status();
}

// Preferred: the kernel compares the registers at each hit (conditional_breakpoint.h).
Status ReplaySession::SegmentRun::arm_breakpoint() {
  if (!has_next_ || next_forced_) return ok_status();
  // SLSDBG_REPLAY_BREAKPOINT=ptrace forces the fallback (tests, debugging).
  const char* force = std::getenv("SLSDBG_REPLAY_BREAKPOINT");
  const ConditionalBreakpoint::Compare compare = target_at_ == RegsAt::RewoundSyscall ? ConditionalBreakpoint::Compare::AllButRcxR11
                                                 : target_at_ == RegsAt::InsideRepString ? ConditionalBreakpoint::Compare::AllButStringRegs
                                                                                         : ConditionalBreakpoint::Compare::All;
  auto cond = force && std::string(force) == "ptrace" ? Result<ConditionalBreakpoint>(Error::msg("forced by SLSDBG_REPLAY_BREAKPOINT"))
                                                      : ConditionalBreakpoint::arm(task_.raw_tid(), target_, compare);
  if (cond.ok()) {
    conditional_.emplace(std::move(*cond));
    return ok_status();
  }
  static bool warned = false;
  if (!warned) {
    warned = true;
    SLSDBG_WARN("replay", "stopping at every hit of a checkpoint's pc (slow in loops): %s", cond.error().message.c_str());
  }
  return insert_breakpoint();
}

// The checkpoint can only be reached once the log is consumed: its breakpoint
// goes in then (a visit of its pc before that would cost a #DB for nothing,
// e.g. a checkpoint inside a loop that makes a syscall every 100k
// iterations). Idempotent.
Status ReplaySession::SegmentRun::at_log_end(int deliver) {
  if (armed_ || cursor_ != events_.size() || !has_next_ || next_forced_) return ok_status();
  armed_ = true;
  return maybe_patch(deliver);
}

// Once the log is consumed nothing but the checkpoint is left to find, often
// in a hot loop: reach it through the patched breakpoint, under a CPU-time
// budget from the recorder's hint (checkpoint k+1's cpu_since_event_ns).
// With an observer only where it cannot see the patch, and with a fork of
// the tracee kept as a rescue: a replay again from checkpoint k would show
// the observer the segment's events twice. `deliver` is the signal the
// coming resumption delivers (a fork would not).
// The observer stops the run before the checkpoint (holds_checkpoint): a
// breakpoint armed there would only cost a #DB per visit on the way.
Status ReplaySession::SegmentRun::hold_checkpoint() {
  if (held_ || hold_expired_ || patched_ || patch_deferred_ || !s_.observer_ || cursor_ != events_.size() || !has_next_ ||
      next_forced_ || !s_.observer_->holds_checkpoint())
    return ok_status();
  const std::optional<uint64_t> hint = hint_;
  const uint64_t budget = hint ? 20 * *hint + 20'000'000 : 10'000'000'000ull;
  Result<UniqueFd> alarm = process::arm_cpu_time_alarm(task_.raw_tid(), budget);
  if (!alarm.ok()) return ok_status();
  SLSDBG_DEBUG("replay", "checkpoint %llu: nothing armed until the observer's stop before it",
               (unsigned long long)seg_.value + 1);
  budget_ = std::move(*alarm);
  held_ = true;
  conditional_.reset();
  return remove_breakpoint();
}

Status ReplaySession::SegmentRun::maybe_patch(int deliver) {
  TRY(hold_checkpoint());
  if (held_) return ok_status();
  TRY(try_patch(deliver));
  // Whatever refused the patch (the observer, the code, a failed install),
  // a consumed log keeps a breakpoint on the checkpoint: a plain continue
  // with neither armed runs past it forever.
  if (cursor_ == events_.size() && !patched_ && !patch_deferred_ && !conditional_ && !bp_inserted_)
    return arm_breakpoint();
  return ok_status();
}

Status ReplaySession::SegmentRun::try_patch(int deliver) {
  if (patched_ || patch_deferred_ || patch_failed_ || patch_dropped_ || s_.patch_off_ || !has_next_ || next_forced_ ||
      cursor_ != events_.size() || target_at_ == RegsAt::InsideRepString)
    return ok_status();
  const char* mode = std::getenv("SLSDBG_REPLAY_PATCH");  // "off": hardware breakpoint only (measurements)
  if (mode && std::string(mode) == "off") return ok_status();
  if (site_refused_) return ok_status();
  if (!patch_site_) {
    const CodeReader read = [this](uint64_t addr, std::span<uint8_t> out) {
      if (!task_.read_memory(RemoteAddr(addr), out).ok()) return false;
      if (s_.observer_) s_.observer_->hide_traps(addr, out);
      return true;
    };
    Result<PatchSite> site = plan_patch_site(target_.rip, read);
    if (!site.ok()) {
      SLSDBG_DEBUG("replay", "checkpoint %llu: no patched breakpoint at %s: %s", (unsigned long long)seg_.value + 1,
                   hex(target_.rip).c_str(), site.error().message.c_str());
      site_refused_ = true;  // not planned again in this run
      return ok_status();
    }
    patch_site_ = *site;
  }
  const PatchSite site = *patch_site_;
  if (s_.observer_) {
    if (deliver || !s_.observer_->allows_patch(site.anchor, site.end())) {
      patch_retry_ = true;  // go() asks again
      return ok_status();
    }
    Result<bool> shared = has_shared_writable_mapping(task_.tgid());
    if (!shared.ok() || *shared) return ok_status();  // the rescue fork would share it
  }
  // The tracee stands inside the bytes the jump would replace (back from a
  // signal handler into the loop): patch at its next arrival at pc, found
  // by a plain debug-register breakpoint (one #DB).
  user_regs_struct now = TRY(task_.regs());
  if (now.rip > site.anchor && now.rip < site.end() && !(site.anchored() && now.rip == site.pc)) {
    SLSDBG_DEBUG("replay", "checkpoint %llu: patch deferred to the next arrival at %s", (unsigned long long)seg_.value + 1,
                 hex(target_.rip).c_str());
    conditional_.reset();
    patch_deferred_ = true;
    return insert_breakpoint();
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
  if (s_.observer_) {
    now.orig_rax = static_cast<uint64_t>(-1);  // the copy is not inside a syscall
    const uint64_t mask = TRY(task_.signal_mask());
    Result<process::Task> copy = fork_tracee(task_, now, mask);
    if (!copy.ok()) {
      SLSDBG_DEBUG("replay", "no rescue copy, no patched breakpoint: %s", copy.error().message.c_str());
      return ok_status();
    }
    rescue_.emplace(std::move(*copy));
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
    drop_rescue();
    return ok_status();
  }
  SLSDBG_DEBUG("replay", "checkpoint %llu: patched breakpoint at %s%s, CPU budget %llu us (hint %s)%s",
               (unsigned long long)seg_.value + 1, hex(target_.rip).c_str(),
               site.anchored() ? (" (jump at " + hex(site.anchor) + ")").c_str() : "",
               (unsigned long long)budget / 1000, hint ? std::to_string(*hint / 1000).c_str() : "none",
               rescue_ ? ", rescue copy kept" : "");
  patched_.emplace(std::move(*patch));
  // Armed last: the injected fork and mmap above run on the tracee's clock.
  Result<UniqueFd> alarm = process::arm_cpu_time_alarm(task_.raw_tid(), budget);
  if (!alarm.ok()) {
    SLSDBG_DEBUG("replay", "no CPU-time alarm, no patched breakpoint: %s", alarm.error().message.c_str());
    drop_rescue();
    return remove_patch();
  }
  budget_ = std::move(*alarm);
  conditional_.reset();
  return remove_breakpoint();
}

// The tracee as it was when the patch went in replaces the current one,
// with no patch, budget or breakpoint of this run left armed.
void ReplaySession::SegmentRun::take_rescue() {
  task_.kill_and_reap();
  task_ = std::move(*rescue_);
  rescue_.reset();
  patched_.reset();
  budget_.reset();
  conditional_.reset();
  s_.dregs_.release(bp_slot_);  // not in the copy: it was made before the breakpoint
  bp_slot_ = -1;
  bp_inserted_ = false;
  outcome_.reruns++;
}

void ReplaySession::SegmentRun::drop_rescue() {
  if (rescue_) rescue_->kill_and_reap();
  rescue_.reset();
}

// A trap for the observer while patched. It must not see the patch, and the
// run may already have passed the checkpoint unmatched (a trampoline that
// failed), which nothing could tell afterwards. So go on from the copy made
// when the patch went in (the observer has seen nothing since; its int3s are
// in the copy's memory, and it had no debug register in use) with the
// hardware breakpoint: the trap comes again if it lies before the
// checkpoint. True: the trap is to be dropped.
Result<bool> ReplaySession::SegmentRun::drop_patch() {
  patch_dropped_ = true;
  if (!rescue_) {
    TRY(remove_patch());
    TRY(arm_breakpoint());
    return false;
  }
  SLSDBG_DEBUG("replay", "segment %llu: a trap for the observer while patched; going on from the rescue copy",
               (unsigned long long)seg_.value);
  take_rescue();
  TRY(arm_breakpoint());
  return true;
}

// The patched run failed with an observer: go on from the copy made when the
// patch went in (the observer has seen nothing since), patched again with a
// larger budget if only the budget ran out, else with the hardware breakpoint.
Status ReplaySession::SegmentRun::use_rescue() {
  const bool retry = patch_failed_by_budget_ && ++s_.patch_failures_ < kPatchAttempts;
  SLSDBG_DEBUG("replay", "segment %llu: patched run failed; going on from the rescue copy (%s)",
               (unsigned long long)seg_.value, retry ? "larger CPU budget" : "hardware breakpoint");
  take_rescue();
  patch_failed_ = patch_failed_by_budget_ = false;
  patch_dropped_ = !retry;
  outcome_.end = SegmentEnd::Diverged;
  outcome_.divergence.reset();
  TRY(maybe_patch());
  return go();
}

Status ReplaySession::SegmentRun::remove_patch() {
  budget_.reset();
  if (!patched_) return ok_status();
  Status st = patched_->remove(task_);
  patched_.reset();
  return st;
}

// The trampoline's int3: the registers equal the target's (rip aside).
Result<ReplaySession::SegmentRun::Next> ReplaySession::SegmentRun::on_patched_match(user_regs_struct& r) {
  user_regs_struct at = r;
  at.rip = target_.rip;
  if (TRY(on_breakpoint(at)) == Next::Done) {
    uint64_t cpu_ns = 0;  // the alarm counts the patched run's CPU time
    if (::read(budget_.get(), &cpu_ns, sizeof cpu_ns) == static_cast<ssize_t>(sizeof cpu_ns)) {
      const std::optional<uint64_t> hint = hint_;
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
  if (!patched_ || !patch_site_ || !last_differing_word_ || mem_checks_.size() >= kMaxMemChecks) return ok_status();
  const MemCheck word = *std::exchange(last_differing_word_, std::nullopt);
  for (const MemCheck& m : mem_checks_)
    if (m.addr == word.addr) return ok_status();
  user_regs_struct at = r;
  at.rip = target_.rip;
  TRY(patched_->remove(task_));
  patched_.reset();
  TRY(task_.set_regs(at));
  mem_checks_.push_back(word);
  Result<PatchedBreakpoint> patch = PatchedBreakpoint::install(task_, *patch_site_, patch_regs_, patch_compare_, mem_checks_);
  if (!patch.ok()) {
    // The plain breakpoint then finds the checkpoint, a trap per visit.
    SLSDBG_DEBUG("replay", "checkpoint %llu: the patch with %zu memory words did not go in: %s",
                 (unsigned long long)seg_.value + 1, mem_checks_.size(), patch.error().message.c_str());
    budget_.reset();
    return arm_breakpoint();
  }
  SLSDBG_DEBUG("replay", "checkpoint %llu: the patch compares %zu memory word(s) too (last %s)",
               (unsigned long long)seg_.value + 1, mem_checks_.size(), hex(word.addr).c_str());
  patched_.emplace(std::move(*patch));
  return ok_status();
}

Status ReplaySession::SegmentRun::remove_breakpoint() {
  if (!bp_inserted_) return ok_status();
  s_.dregs_.release(bp_slot_);
  bp_slot_ = -1;
  bp_inserted_ = false;
  Status st = s_.dregs_.apply(task_.raw_tid());
  if (!st.ok() && st.error().errno_value != ESRCH) return st;
  return ok_status();
}

ReplaySession::SegmentRun::Next ReplaySession::SegmentRun::diverge(uint64_t pc, std::string expected,
                                                                   std::string actual) {
  outcome_.end = SegmentEnd::Diverged;
  outcome_.divergence = Divergence{seg_, cursor_, std::move(expected), std::move(actual), pc};
  if (patched_) {
    SLSDBG_INFO("replay", "segment %llu: the patched breakpoint's run failed: %s", (unsigned long long)seg_.value,
                outcome_.divergence->describe().c_str());
    patch_failed_ = true;
  }
  return Next::Done;
}

// The XSAVE areas (xsave_noise.h) that explain every difference between a
// live page and its recorded contents; nullopt if some difference is real.
std::optional<std::vector<XsaveArea>> ReplaySession::SegmentRun::noise_areas(uint64_t vaddr,
                                                                              std::span<const uint8_t> live,
                                                                              std::span<const uint8_t> recorded) {
  const CheckpointId next(seg_.value + 1);
  // Reads inside the page at hand come from the copies already made: the
  // search probes many candidate headers.
  const auto from_page = [vaddr](std::span<const uint8_t> page, uint64_t a, std::span<uint8_t> out) {
    if (a < vaddr || a + out.size() > vaddr + kPageSize) return false;
    std::memcpy(out.data(), page.data() + (a - vaddr), out.size());
    return true;
  };
  const ImageReader live_image = [this, &from_page, live](uint64_t a, std::span<uint8_t> out) {
    if (from_page(live, a, out)) return ok_status();
    return read_live_page(a, out);
  };
  const ImageReader recorded_image = [this, &from_page, recorded, next](uint64_t a, std::span<uint8_t> out) {
    if (from_page(recorded, a, out)) return ok_status();
    return s_.reader_.read_memory(next, a, out);
  };
  std::vector<XsaveArea> areas;
  for (size_t i = 0; i < kPageSize; i++) {
    if (live[i] == recorded[i]) continue;
    const uint64_t addr = vaddr + i;
    bool covered = false;
    for (const XsaveArea& a : areas) covered = covered || a.contains(addr);
    if (covered) continue;
    std::optional<XsaveArea> area = xsave_area_explaining(addr, live_image, recorded_image);
    if (!area) return std::nullopt;
    areas.push_back(*area);
  }
  return areas;
}

// A live page equals its recorded contents once the differences that no
// program input decides are set aside: bytes in dead stack (dead_stack.h),
// then XINUSE noise in XSAVE areas (xsave_noise.h). What must be written to
// make them equal is added to `settle`.
bool ReplaySession::SegmentRun::equal_but_noise(uint64_t vaddr, std::span<const uint8_t> live,
                                                std::span<const uint8_t> recorded, Settle& settle) {
  if (std::memcmp(live.data(), recorded.data(), kPageSize) == 0) return true;
  if (std::optional<std::vector<ByteRun>> dead = dead_only_differences(vaddr, live, recorded, dead_stack_)) {
    settle.dead_runs.insert(settle.dead_runs.end(), dead->begin(), dead->end());
    return true;
  }
  if (std::optional<std::vector<XsaveArea>> areas = noise_areas(vaddr, live, recorded)) {
    settle.xsave_areas.insert(settle.xsave_areas.end(), areas->begin(), areas->end());
    return true;
  }
  return false;
}

// Live bytes (a page, or any run) as the program sees them: the timeline's int3
// breakpoints read as the original code.
Status ReplaySession::SegmentRun::read_live_page(uint64_t vaddr, std::span<uint8_t> out) {
  TRY(task_.read_memory(RemoteAddr(vaddr), out));
  if (s_.observer_) s_.observer_->hide_traps(vaddr, out);
  if (patched_) patched_->hide(vaddr, out);
  return ok_status();
}

// The first word of a page that differs from its recorded contents, for the
// patch to compare (refit_patch). Not one below the stack pointer, which may
// differ by noise alone (dead_stack.h).
void ReplaySession::SegmentRun::note_differing_word(uint64_t vaddr, std::span<const uint8_t> live,
                                                    std::span<const uint8_t> recorded) {
  size_t first = 0;
  while (first < kPageSize && live[first] == recorded[first]) first++;
  if (first >= kPageSize) return;
  const uint64_t word = (vaddr + first) & ~uint64_t(7);
  if (dead_stack_ && dead_stack_->contains(word)) return;
  MemCheck m{word, 0};
  std::memcpy(&m.value, recorded.data() + (word - vaddr), 8);
  last_differing_word_ = m;
}

// Registers equal (checked by the caller) and the log consumed: the pages
// checkpoint k+1 lists as dirty decide. Differences that are only XINUSE noise
// in XSAVE areas are overwritten with the recorded bytes once everything else
// is equal.
Result<bool> ReplaySession::SegmentRun::at_next_checkpoint() {
  const CheckpointId next(seg_.value + 1);
  std::vector<uint8_t> live(kPageSize);
  std::vector<uint8_t> recorded(kPageSize);
  // Registers alone do not tell loop iterations apart when the loop's state
  // lives in memory (-O0 counters on the stack): the page that differed last
  // time usually differs again, so check it before all the others.
  Settle settle;
  if (last_differing_page_ && s_.reader_.read_memory(next, *last_differing_page_, recorded).ok() &&
      read_live_page(*last_differing_page_, live).ok() &&
      !equal_but_noise(*last_differing_page_, live, recorded, settle)) {
    note_differing_word(*last_differing_page_, live, recorded);
    return false;
  }
  settle = Settle{};
  bool same = true;
  uint64_t compared = 0;
  TRY(s_.reader_.for_each_dirty_page(next, [&](uint64_t vaddr, std::span<const uint8_t> data) -> Status {
    if (!same) return ok_status();
    TRY_CTX(read_live_page(vaddr, live), "reading page " + hex(vaddr));
    compared++;
    if (equal_but_noise(vaddr, live, data, settle)) return ok_status();
    same = false;
    last_differing_page_ = vaddr;
    size_t first = 0;
    while (first < kPageSize && live[first] == data[first]) first++;
    note_differing_word(vaddr, live, data);
    SLSDBG_DEBUG("replay", "checkpoint %llu: page %s differs from byte %zu (live %02x, recorded %02x)",
                 (unsigned long long)next.value, hex(vaddr).c_str(), first, live[first], data[first]);
    for (size_t i = first, shown = 0; i < kPageSize && shown < 8; i++)
      if (live[i] != data[i]) {
        SLSDBG_DEBUG("replay", "  byte %s: live %02x recorded %02x", hex(vaddr + i).c_str(), live[i], data[i]);
        shown++;
      }
    for (size_t i = 0; i < events_.size(); i++)
      for (const store::MemoryWrite& w : events_[i].writes)
        if (w.addr < vaddr + kPageSize && w.addr + w.bytes.size() > vaddr)
          SLSDBG_DEBUG("replay", "  event %zu (%s) wrote %s+%zu", i, describe_event(events_[i]).c_str(),
                       hex(w.addr).c_str(), w.bytes.size());
    return ok_status();
  }));
  outcome_.pages_compared = compared;
  if (!same) return false;
  for (const ByteRun& run : settle.dead_runs) {
    std::vector<uint8_t> bytes(run.len);
    TRY_CTX(s_.reader_.read_memory(next, run.addr, bytes), "reading recorded dead stack at " + hex(run.addr));
    TRY_CTX(task_.write_memory(RemoteAddr(run.addr), bytes), "writing recorded dead stack at " + hex(run.addr));
    SLSDBG_DEBUG("replay", "checkpoint %llu: %llu dead stack bytes at %s set to the recorded ones",
                 (unsigned long long)next.value, (unsigned long long)run.len, hex(run.addr).c_str());
    outcome_.dead_stack_bytes_settled += run.len;
  }
  for (const XsaveArea& a : settle.xsave_areas) {
    std::vector<uint8_t> area(a.size);
    TRY_CTX(s_.reader_.read_memory(next, a.start, area), "reading the recorded XSAVE area at " + hex(a.start));
    TRY_CTX(task_.write_memory(RemoteAddr(a.start), area), "writing the recorded XSAVE area at " + hex(a.start));
    SLSDBG_DEBUG("replay", "checkpoint %llu: XSAVE area at %s (%llu bytes) differed only in bytes no program input decides; set to the recorded bytes",
                 (unsigned long long)next.value, hex(a.start).c_str(), (unsigned long long)a.size);
  }
  outcome_.xsave_areas_settled += settle.xsave_areas.size();
  return true;
}

// At the start of the rep string instruction checkpoint k+1 interrupted, all
// other registers equal: run iterations up to the recorded rcx. False: not
// this execution of it. Single steps trap after each iteration but cost a
// stop each, so a long run first goes to a data watchpoint (any debug
// register, borrowed from the observer when none is free) on the
// element a margin before the target, then steps the rest: a data breakpoint
// in a fast-string run may be reported some iterations late.
Result<bool> ReplaySession::SegmentRun::step_rep_iterations(user_regs_struct& r) {
  constexpr uint64_t kStepMargin = 256;  // iterations single-stepped at the end (the data breakpoint was never seen late here)
  const pid_t tid = task_.raw_tid();
  if (r.rip == target_.rip && r.rcx > target_.rcx + 2 * kStepMargin) {
    const uint64_t run = r.rcx - target_.rcx - kStepMargin;  // iterations to let run
    const uint64_t walked = target_rep_->walks_rdi ? r.rdi : r.rsi;
    const bool down = (r.eflags & 0x400) != 0;  // DF
    const uint64_t offset = (run - 1) * target_rep_->element_size;
    const uint64_t watch = down ? walked - offset : walked + offset;
    // A free debug register, else one of the observer's, borrowed and given back.
    DebugRegisters::Borrowed lent = TRY(s_.dregs_.borrow(DrUse::RepStringWatch, watch, DrKind::Access, 1));
    TRY(s_.dregs_.apply(tid));
    r.eflags |= 0x10000ull;  // RF: not the execution breakpoint on this instruction again
    TRY(task_.set_regs(r));
    TRY(task_.cont());
    process::WaitResult w = TRY(task_.wait());
    s_.dregs_.give_back(lent);
    TRY(s_.dregs_.apply(tid));
    if (w.kind != process::StopKind::SignalDelivery || w.signo != SIGTRAP)
      return Error::msg("running a rep string instruction toward checkpoint " + std::to_string(seg_.value + 1) +
                        ": unexpected stop (signal " + std::to_string(w.signo) + ")");
    r = TRY(task_.regs());
    SLSDBG_DEBUG("replay", "rep string at %s: watchpoint stop at rcx %s (target %s)", hex(target_.rip).c_str(),
                 hex(r.rcx).c_str(), hex(target_.rcx).c_str());
  }
  int stuck = 0;
  while (r.rip == target_.rip && r.rcx > target_.rcx) {
    // RF: the execution breakpoint on this very instruction must not fire
    // again before the next iteration.
    const uint64_t before = r.rcx;
    r.eflags |= 0x10000ull;
    TRY(task_.set_regs(r));
    TRY(task_.singlestep());
    process::WaitResult w = TRY(task_.wait());
    if (w.kind != process::StopKind::SignalDelivery || w.signo != SIGTRAP)
      return Error::msg("stepping a rep string instruction toward checkpoint " + std::to_string(seg_.value + 1) +
                        ": unexpected stop (signal " + std::to_string(w.signo) + ")");
    r = TRY(task_.regs());
    if (r.rcx == before && ++stuck > 3)
      return Error::msg("stepping a rep string instruction toward checkpoint " + std::to_string(seg_.value + 1) +
                        ": no progress at " + hex(r.rip));
  }
  r.eflags &= ~0x10000ull;
  std::string diff;
  const bool there = same_general_registers(r, target_, &diff, RegsAt::Anywhere);
  SLSDBG_DEBUG("replay", "rep string at %s stepped to rcx %s: %s", hex(target_.rip).c_str(), hex(r.rcx).c_str(),
               there ? "registers equal" : diff.c_str());
  return there;
}

Result<ReplaySession::SegmentRun::Next> ReplaySession::SegmentRun::on_breakpoint(user_regs_struct& r) {
  std::string diff;
  SLSDBG_DEBUG("replay", "at checkpoint %llu's pc %s", (unsigned long long)seg_.value + 1, hex(r.rip).c_str());
  if (cursor_ != events_.size() || !same_general_registers(r, target_, &diff, target_at_)) {
    SLSDBG_DEBUG("replay", "breakpoint at %s: not there (%s)", hex(target_.rip).c_str(),
                 cursor_ != events_.size() ? "events left" : diff.c_str());
    return Next::Resume;
  }
  if (target_at_ == RegsAt::InsideRepString && !TRY(step_rep_iterations(r))) return Next::Resume;
  if (TRY(at_next_checkpoint())) {
    // The breakpoint hit set RF; the recorded state has it clear, and it
    // would show in a signal frame.
    r.eflags &= ~0x10000ull;
    r.rcx = target_.rcx;  // equal unless rewound over a syscall
    r.r11 = target_.r11;
    TRY(task_.set_regs(r));
    outcome_.end = SegmentEnd::ReachedByExecution;
    return Next::Done;
  }
  return Next::Resume;  // same registers, other memory: an earlier visit of this pc
}

Result<ReplaySession::SegmentRun::Next> ReplaySession::SegmentRun::on_seccomp() {
  user_regs_struct r = TRY(task_.regs());
  const int64_t nr = static_cast<int64_t>(r.orig_rax);
  const auto args = syscall_args(r);
  const std::string actual = "syscall " + describe_syscall(nr, args);
  const store::Event* ev = next_event();
  const SyscallHandling how = handling_of(nr, args);
  if (how == SyscallHandling::EndOfProcess && ev && ev->kind == store::EventKind::Exit) {
    if (s_.observer_ && s_.observer_->before_exit(task_, *ev) == RunObserver::Verdict::Pause) return Next::Pause;
    TRY(task_.cont());  // the real exit; its status is checked against the Exit event
    return Next::Resume;
  }
  if (!ev || ev->kind != store::EventKind::Syscall || ev->syscall_no != nr || ev->args != args)
    return diverge(r.rip, expected_here(), actual);
  cursor_++;
  outcome_.events_replayed++;
  if (how == SyscallHandling::Emulate) {
    r.orig_rax = static_cast<uint64_t>(-1);
    r.rax = static_cast<uint64_t>(ev->result);
    TRY(task_.set_regs(r));
    TRY_CTX(install_placeholders(task_, created_fds(*ev)), "replaying " + actual);
  } else {
    // The kernel chooses where a mapping goes from this process's randomized
    // mmap base, which the restored process does not share: ask for the
    // recorded place. The argument registers are put back afterwards.
    const bool pinned = pin_placement(nr, *ev, r);
    if (pinned) TRY(task_.set_regs(r));
    TRY(task_.syscall());
    process::WaitResult w = TRY(task_.wait());
    if (w.kind != process::StopKind::SyscallStop)
      return diverge(r.rip, describe_event(*ev), actual + " did not return (stopped otherwise)");
    user_regs_struct after = TRY(task_.regs());
    if (pinned) {
      after.rdi = args[0];
      after.r10 = args[3];
      after.r8 = args[4];
      TRY(task_.set_regs(after));
    }
    const int64_t result = static_cast<int64_t>(after.rax);
    if (result != ev->result) {
      if (how == SyscallHandling::RunAndCheck) {
        cursor_--;
        return diverge(r.rip, describe_event(*ev), actual + " = " + std::to_string(result));
      }
      after.rax = static_cast<uint64_t>(ev->result);
      TRY(task_.set_regs(after));
    }
  }
  for (const store::MemoryWrite& w : ev->writes)
    TRY_CTX(task_.write_memory(RemoteAddr(w.addr), w.bytes), "writing the logged output of " + actual);
  if (next_event() && next_event()->kind == store::EventKind::ForcedCheckpoint) {
    cursor_++;
    outcome_.end = SegmentEnd::ReachedByRestore;
    return Next::Done;
  }
  return after_event(*ev);
}

Result<ReplaySession::SegmentRun::Next> ReplaySession::SegmentRun::on_signal(int signo) {
  siginfo_t si = TRY(task_.siginfo());
  user_regs_struct r = TRY(task_.regs());
  if (signo == SIGTRAP && patched_ && r.rip == patched_->resume_addr() && si.si_code == SI_KERNEL)
    return on_patched_match(r);
  if (signo == SIGTRAP && process::is_cpu_time_alarm(si) && held_) {
    // Slower than the recording (the target probe traps per visit): the
    // stop still comes before the checkpoint, which gets its breakpoint now.
    held_ = false;
    hold_expired_ = true;
    budget_.reset();
    TRY(maybe_patch());
    TRY(go());
    return Next::Resume;
  }
  if (signo == SIGTRAP && process::is_cpu_time_alarm(si) && !patched_) {
    TRY(go());  // queued before the patch went away: stale
    return Next::Resume;
  }
  if (signo == SIGTRAP && process::is_cpu_time_alarm(si)) {
    // Far more CPU time than the recorder saw: the patch missed the checkpoint.
    SLSDBG_INFO("replay", "segment %llu: the patched breakpoint's run is over its CPU budget (pc %s)",
                (unsigned long long)seg_.value, hex(r.rip).c_str());
    patch_failed_ = patch_failed_by_budget_ = true;
    outcome_.end = SegmentEnd::Diverged;
    return Next::Done;
  }
  if (signo == SIGTRAP && bp_inserted_ && r.rip == target_.rip && si.si_code == TRAP_HWBKPT) {
    Next n = TRY(on_breakpoint(r));
    if (n == Next::Done) return n;
    if (patch_deferred_) {
      patch_deferred_ = false;
      TRY(remove_breakpoint());
      TRY(maybe_patch());
    }
    TRY(go());
    return Next::Resume;
  }
  if (signo == SIGTRAP && conditional_ && si.si_code == TRAP_PERF) {
    if (r.rip == target_.rip) {
      Next n = TRY(on_breakpoint(r));
      if (n == Next::Done) {
        conditional_.reset();
        return n;
      }
    }
    TRY(go());  // the SIGTRAP is ours: suppressed
    return Next::Resume;
  }
  if (signo == SIGTRAP && patched_ && s_.observer_) {
    // An int3 of the padding after the jump: a branch into the moved bytes.
    if (si.si_code == SI_KERNEL && r.rip > patched_->anchor() + 1 && r.rip <= patched_->anchor() + patched_->length())
      return diverge(r.rip, expected_here(), "a branch into the bytes the patched breakpoint moved");
    if (s_.observer_->stop_before_segment_end(task_, si)) {
      // Before the checkpoint, so the run has not passed it unmatched: no
      // rescue needed. A breakpoint keeps it until the patch may go in again.
      SLSDBG_DEBUG("replay", "segment %llu: the observer's target, before the checkpoint; patch taken away",
                   (unsigned long long)seg_.value);
      TRY(remove_patch());
      drop_rescue();
      patch_retry_ = true;
      TRY(arm_breakpoint());
    } else if (TRY(drop_patch())) {
      TRY(go());
      return Next::Resume;
    }
  }
  if (signo == SIGTRAP && s_.observer_) {
    const RunObserver::Verdict v = TRY(s_.observer_->on_trap(task_, si));
    if (v == RunObserver::Verdict::Pause) return Next::Pause;
    if (v == RunObserver::Verdict::Resume) {
      // The observer's debug register at checkpoint k+1's pc fired in the
      // same #DB as the conditional breakpoint, whose SIGTRAP is then lost
      // (a second standard signal is not queued): check here.
      if (conditional_ && has_next_ && !next_forced_ && cursor_ == events_.size()) {
        user_regs_struct now = TRY(task_.regs());
        if (now.rip == target_.rip && TRY(on_breakpoint(now)) == Next::Done) {
          conditional_.reset();
          return Next::Done;
        }
      }
      TRY(go());
      return Next::Resume;
    }
  }
  if (signo == SIGTRAP && si.si_code == TRAP_TRACE) {
    TRY(go());
    return Next::Resume;
  }
  const store::Event* ev = next_event();
  if (signo == SIGSEGV && si.si_code == SI_KERNEL) {
    uint8_t code[3] = {0, 0, 0};
    if (task_.read_memory(RemoteAddr(r.rip), {code, 3}).ok() && code[0] == 0x0f &&
        (code[1] == 0x31 || (code[1] == 0x01 && code[2] == 0xf9))) {
      const bool rdtscp = code[1] == 0x01;
      const std::string actual = rdtscp ? "rdtscp" : "rdtsc";
      if (!ev || ev->kind != store::EventKind::Rdtsc || ev->is_rdtscp != rdtscp)
        return diverge(r.rip, expected_here(), actual);
      r.rax = ev->tsc & 0xffffffffu;
      r.rdx = ev->tsc >> 32;
      if (rdtscp) r.rcx = ev->tsc_aux;
      r.rip += rdtscp ? 3 : 2;
      // The #GP left RF set, which would make the next instruction skip a
      // breakpoint at its address (a checkpoint right after rdtsc).
      r.eflags &= ~0x10000ull;
      TRY(task_.set_regs(r));
      cursor_++;
      outcome_.events_replayed++;
      // A checkpoint right after the emulated instruction: the breakpoint
      // would not see it (the resumed #GP keeps RF), so check here.
      if (has_next_ && !next_forced_ && cursor_ == events_.size() && r.rip == target_.rip) {
        Next n = TRY(on_breakpoint(r));
        if (n == Next::Done) return n;
      }
      return after_event(*ev);
    }
  }
  if (!ev || ev->kind != store::EventKind::Signal || ev->signo != signo)
    return diverge(r.rip, expected_here(), "signal " + std::to_string(signo));
  if (s_.observer_ && !signal_announced_) {
    signal_announced_ = true;
    if (s_.observer_->before_signal(task_, signo) == RunObserver::Verdict::Pause) {
      reenter_signal_ = signo;
      return Next::Pause;
    }
  }
  signal_announced_ = false;
  if (ev->siginfo.size() >= sizeof(siginfo_t)) {
    siginfo_t logged;
    std::memcpy(&logged, ev->siginfo.data(), sizeof logged);
    TRY(task_.set_siginfo(logged));
  }
  cursor_++;
  outcome_.events_replayed++;
  // Held by the recorder and delivered right after checkpoint k: the
  // recorder zeroed the frame's FPU area first (process/signal_frame.h).
  if (!is_synchronous(*ev) && std::all_of(events_.begin(), events_.begin() + static_cast<long>(cursor_),
                                          [](const store::Event& e) { return e.kind == store::EventKind::Signal; }))
    TRY_CTX(process::clear_signal_fpu_area(task_), "preparing the signal frame");
  if (s_.observer_ && TRY(s_.observer_->on_event_done(task_, cursor_ - 1, *ev)) == RunObserver::Verdict::Pause) {
    deliver_on_resume_ = signo;
    return Next::Pause;
  }
  TRY(at_log_end(signo));
  TRY(go(signo));
  return Next::Resume;
}

Result<ReplaySession::SegmentRun::Next> ReplaySession::SegmentRun::on_exit(const process::WaitResult& w) {
  const store::Event* ev = next_event();
  const bool killed = w.kind == process::StopKind::Killed;
  const std::string actual = killed ? "exit (killed by " + signal_name(w.signo) + ")"
                                    : "exit with status " + std::to_string(w.exit_code);
  if (!ev || ev->kind != store::EventKind::Exit || (killed ? ev->signo != w.signo : ev->exit_status != w.exit_code))
    return diverge(0, expected_here(), actual);
  cursor_++;
  outcome_.events_replayed++;
  outcome_.end = SegmentEnd::EndOfHistory;
  return Next::Done;
}

Result<SegmentOutcome> ReplaySession::SegmentRun::run() {
  if (!started_) {
    started_ = true;
    if (TRY(begin()) == Next::Done) return outcome_;
  } else {
    outcome_ = SegmentOutcome{SegmentEnd::Diverged, std::nullopt, outcome_.events_replayed, 0};
    Next n = TRY(resume_paused());
    if (n == Next::Pause) {
      outcome_.end = SegmentEnd::Paused;
      return outcome_;
    }
    if (n == Next::Done) return finish_run();
  }
  return loop();
}

// Reads the log and the next checkpoint, then starts the tracee.
Result<ReplaySession::SegmentRun::Next> ReplaySession::SegmentRun::begin() {
  events_ = TRY_CTX(s_.reader_.segment_events(seg_), "reading segment " + std::to_string(seg_.value));
  TRY(check_sysbuf_events(s_.reader_, events_));
  const auto checkpoints = s_.reader_.checkpoints();
  has_next_ = s_.k_.value + 1 < checkpoints.size();
  if (has_next_) hint_ = checkpoints[s_.k_.value + 1].cpu_since_event_ns;
  for (const store::Event& ev : events_)
    if (ev.kind == store::EventKind::ForcedCheckpoint) next_forced_ = true;
  if (has_next_) {
    store::ProcessState next = TRY(s_.reader_.process_state(CheckpointId(s_.k_.value + 1)));
    if (next.threads.size() != 1) return Error::msg("replay of multithreaded checkpoints is not supported yet");
    target_ = next.threads[0].regs;
    dead_stack_ = dead_stack_range(next, target_.rsp);
    uint8_t code[2] = {0, 0};
    // From the recorded image: at checkpoint 0 the code may not be mapped yet.
    // The syscall buffer stub's trapped `syscall` is not in the image (the
    // injection area is not captured), but sits at a fixed address.
    const bool stub_syscall = target_.rip == process::sysbuf_stub_layout().slow;
    if ((stub_syscall || (s_.reader_.read_memory(CheckpointId(s_.k_.value + 1), target_.rip, {code, 2}).ok() &&
                          code[0] == 0x0f && code[1] == 0x05)) &&
        target_.rcx == target_.rip + 2)
      target_at_ = RegsAt::RewoundSyscall;
    uint8_t insn[15] = {};
    if (target_at_ == RegsAt::Anywhere &&
        s_.reader_.read_memory(CheckpointId(s_.k_.value + 1), target_.rip, {insn, sizeof insn}).ok() &&
        (target_rep_ = decode_rep_string(insn)))
      target_at_ = RegsAt::InsideRepString;
  }
  // The end of a recording cut short: refused or stopped (the recorder killed
  // the program right after a final checkpoint: a lone SIGKILL exit), or the
  // recorder itself killed (the log after the last checkpoint has no exit; its
  // prefix may stop anywhere, even inside an event). History ends at the
  // last complete checkpoint.
  const bool logs_exit = std::any_of(events_.begin(), events_.end(),
                                     [](const store::Event& e) { return e.kind == store::EventKind::Exit; });
  if (!has_next_ && (!logs_exit || (events_.size() == 1 && events_[0].signo == SIGKILL))) {
    outcome_.end = SegmentEnd::EndOfHistory;
    outcome_.cut_short = true;
    return Next::Done;
  }
  // A copy adopted after event start_event_ - 1 (a moment snapshot): that
  // much of the log is consumed already, its opening signals delivered.
  if (s_.start_event_ > 0) {
    cursor_ = std::min<size_t>(std::exchange(s_.start_event_, 0), events_.size());
    s_.signals_queued_by_restore_ = false;
    if (has_next_ && !next_forced_ && cursor_ == events_.size()) {  // standing on checkpoint k+1?
      user_regs_struct r = TRY(task_.regs());
      if (same_general_registers(r, target_, nullptr, target_at_ == RegsAt::InsideRepString ? RegsAt::Anywhere : target_at_) &&
          TRY(at_next_checkpoint())) {
        outcome_.end = SegmentEnd::ReachedByExecution;
        return Next::Done;
      }
    }
    TRY(at_log_end());
    TRY(go());
    return Next::Resume;
  }
  // Checkpoint capture ran an injected stub ending in int3, so the kernel's
  // last-trap number (shown in a signal frame's trapno) was 3 when the
  // recorded program went on; do the same before a signal is delivered.
  if (!events_.empty() && events_[0].kind == store::EventKind::Signal)
    TRY_CTX(process::run_injected_stub(task_, process::sigaction_dump_stub(), [](user_regs_struct&) {}),
            "matching the recorder's last trap");
  // Asynchronous signals the recorder re-sent right after checkpoint k.
  // A synchronous one (a fault the segment's first instructions cause) is
  // not sent: the instruction raises it again.
  if (!s_.signals_queued_by_restore_)
    for (size_t i = 0; i < events_.size() && events_[i].kind == store::EventKind::Signal; i++) {
      if (is_synchronous(events_[i])) continue;
      if (syscall(SYS_tgkill, task_.tgid(), task_.raw_tid(), events_[i].signo) != 0)
        return Error::from_errno("tgkill");
    }
  s_.signals_queued_by_restore_ = false;

  // Already there (an empty segment)?
  if (has_next_ && !next_forced_ && events_.empty()) {
    user_regs_struct r = TRY(task_.regs());
    if (same_general_registers(r, target_, nullptr, target_at_ == RegsAt::InsideRepString ? RegsAt::Anywhere : target_at_) && TRY(at_next_checkpoint())) {
      outcome_.end = SegmentEnd::ReachedByExecution;
      return Next::Done;
    }
  }
  TRY(at_log_end());
  TRY(go());
  return Next::Resume;
}

// Waits for the tracee's stops and handles them until the segment ends or
// the observer pauses the run.
Result<SegmentOutcome> ReplaySession::SegmentRun::loop() {
  for (;;) {
    process::WaitResult w = TRY(task_.wait());
    SLSDBG_DEBUG("replay", "segment %llu event %zu/%zu: stop kind %d signo %d event %d",
                 (unsigned long long)seg_.value, cursor_, events_.size(), static_cast<int>(w.kind), w.signo, w.event);
    Next n = Next::Resume;
    switch (w.kind) {
      case process::StopKind::Exited:
      case process::StopKind::Killed:
        n = TRY(on_exit(w));
        if (n == Next::Resume) return Error::msg("internal: exit handled without end");
        break;
      case process::StopKind::PtraceEvent:
        if (w.event == PTRACE_EVENT_SECCOMP) {
          n = TRY(on_seccomp());
        } else {
          TRY(go());
        }
        break;
      case process::StopKind::SignalDelivery:
        n = TRY(on_signal(w.signo));
        break;
      case process::StopKind::GroupStop:
      case process::StopKind::SyscallStop:
        if (s_.observer_ && w.kind == process::StopKind::SyscallStop &&
            s_.observer_->on_syscall_exit(task_) == RunObserver::Verdict::Pause) {
          n = Next::Pause;
          break;
        }
        TRY(go());
        break;
    }
    if (n == Next::Pause) {
      outcome_.end = SegmentEnd::Paused;
      return outcome_;
    }
    if (n == Next::Done && patch_failed_ && rescue_) {
      TRY(use_rescue());
      continue;
    }
    if (n == Next::Done) break;
  }
  return finish_run();
}

Result<SegmentOutcome> ReplaySession::SegmentRun::finish_run() {
  conditional_.reset();
  budget_.reset();
  if (patched_ && outcome_.end == SegmentEnd::ReachedByExecution) TRY(remove_patch());
  patched_.reset();  // otherwise the process ends or is replaced
  drop_rescue();
  if (outcome_.end != SegmentEnd::EndOfHistory) TRY(remove_breakpoint());
  return outcome_;
}

ReplaySession::ReplaySession(const store::RecordingReader& reader, CheckpointId k, process::Task task)
    : reader_(reader), k_(k), task_(std::move(task)) {}

ReplaySession::~ReplaySession() { task_.kill_and_reap(); }

namespace {

// The single-thread replay; threaded recordings go through threaded_timeline.h.
Result<process::Task> restore_single(const store::RecordingReader& reader, CheckpointId k) {
  if (reader.meta().threads) return Error::unsupported("this recording holds threads; the single-thread replay does not take them");
  return restore_for_replay(reader, k);
}

}  // namespace

Result<std::unique_ptr<ReplaySession>> ReplaySession::start(const store::RecordingReader& reader, CheckpointId k) {
  if (k.value >= reader.checkpoints().size())
    return Error::msg("no checkpoint " + std::to_string(k.value) + " (the recording has " +
                      std::to_string(reader.checkpoints().size()) + ")");
  process::Task task = TRY_CTX(restore_single(reader, k), "restoring checkpoint " + std::to_string(k.value));
  return std::unique_ptr<ReplaySession>(new ReplaySession(reader, k, std::move(task)));
}

uint64_t ReplaySession::events_consumed() const { return run_ ? run_->cursor() : 0; }
uint64_t ReplaySession::events_in_segment() const { return run_ ? run_->event_count() : 0; }

Result<process::Task> ReplaySession::restore_process(const store::RecordingReader& reader, CheckpointId k) {
  if (k.value >= reader.checkpoints().size())
    return Error::msg("no checkpoint " + std::to_string(k.value));
  return restore_single(reader, k);
}

std::unique_ptr<ReplaySession> ReplaySession::adopt(const store::RecordingReader& reader, CheckpointId k,
                                                    process::Task task, uint64_t start_event) {
  auto s = std::unique_ptr<ReplaySession>(new ReplaySession(reader, k, std::move(task)));
  s->signals_queued_by_restore_ = false;
  s->start_event_ = start_event;
  return s;
}

Result<SegmentOutcome> ReplaySession::run_segment() {
  if (!run_) run_ = std::make_unique<SegmentRun>(*this);
  Result<SegmentOutcome> result = run_->run();
  if (result.ok() && run_->patch_failed()) {
    // Correctness never rests on the patch: replay the segment again from
    // checkpoint k, with a larger budget when only the budget ran out.
    if (!run_->patch_failed_by_budget() || ++patch_failures_ >= kPatchAttempts) patch_off_ = true;
    run_.reset();
    reruns_++;
    SLSDBG_DEBUG("replay", "segment %llu: replaying again from its checkpoint (%s)", (unsigned long long)k_.value,
                 patch_off_ ? "hardware breakpoint" : "larger CPU budget");
    task_.kill_and_reap();
    task_ = TRY_CTX(restore_single(reader_, k_), "restoring checkpoint " + std::to_string(k_.value));
    signals_queued_by_restore_ = true;
    return run_segment();
  }
  if (!result.ok() || result->end != SegmentEnd::Paused) run_.reset();
  SegmentOutcome out = TRY(std::move(result));
  if (out.end != SegmentEnd::Paused) {
    out.reruns = std::exchange(reruns_, 0);
    patch_failures_ = 0;
    patch_off_ = false;
  }
  if (out.end == SegmentEnd::Paused) return out;
  if (out.end == SegmentEnd::ReachedByExecution) {
    k_ = CheckpointId(k_.value + 1);
  } else if (out.end == SegmentEnd::ReachedByRestore) {
    task_.kill_and_reap();
    const CheckpointId next(k_.value + 1);
    if (next.value >= reader_.checkpoints().size())
      return Error::msg("the log forces checkpoint " + std::to_string(next.value) + ", which the recording lacks");
    task_ = TRY_CTX(restore_single(reader_, next), "restoring forced checkpoint " + std::to_string(next.value));
    k_ = next;
    signals_queued_by_restore_ = true;
  }
  return out;
}

}  // namespace slsdbg::replay
