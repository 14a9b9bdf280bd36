// One run of segment k (replay_session.h): the segment's events, consumed
// one stop at a time, then the arrival at checkpoint k+1. The files:
//   segment_run.cc                    the loop: start, stops, logged events, the end
//   segment_run_traps.cc              SIGTRAPs, by owner (trap_router.h)
//   checkpoint_arrival.h              the ways of arriving, one state at a time
//   checkpoint_arrival_hold.cc        nothing armed while the observer stops first
//   checkpoint_arrival_breakpoint.cc  the perf breakpoint, else a debug register
//   checkpoint_arrival_patched.cc     the patch trampoline, its budget and rescue copy
//   checkpoint_arrival_head.cc        most of the tail by the recorded CPU time, unpatched
//   checkpoint_arrival_proof.cc       whether an observer's trap while patched comes first
//   checkpoint_arrival_rep_string.cc  the iterations of a rep string up to the target
//   checkpoint_match.cc               at the pc: registers, then dirty pages
// Internal to the session: only replay_session.cc and these files include it.
#pragma once

#include <signal.h>
#include <sys/user.h>

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/fd.h"
#include "engine/replay/checkpoint_arrival.h"
#include "engine/replay/dead_stack.h"
#include "engine/replay/patch_site.h"
#include "engine/replay/patched_breakpoint.h"
#include "engine/replay/rep_string.h"
#include "engine/replay/replay_helpers.h"
#include "engine/replay/replay_session.h"
#include "engine/replay/trap_router.h"
#include "engine/replay/xsave_noise.h"

namespace slsdbg::replay {

class CountingPatch;

// Patched runs of one segment before the hardware breakpoint alone: CPU
// budgets up to 256x the first.
inline constexpr int kPatchAttempts = 5;

class ReplaySession::SegmentRun {
 public:
  explicit SegmentRun(ReplaySession& s) : s_(s), task_(s.task_), seg_(s.k_.value) {}
  ~SegmentRun() { drop_rescue(); head_copy_.kill(); }  // a run abandoned after an error
  // Starts the run, or resumes it where an observer paused it.
  Result<SegmentOutcome> run();
  uint64_t cursor() const { return cursor_; }
  uint64_t event_count() const { return events_.size(); }
  // The patched run went wrong (diverged, overran its CPU budget): replay the
  // segment again from checkpoint k.
  bool patch_failed() const { return patch_ == PatchState::Failed || patch_ == PatchState::FailedByBudget; }
  bool patch_failed_by_budget() const { return patch_ == PatchState::FailedByBudget; }

 private:
  // What one stop handler decided.
  enum class Next { Resume, Done, Pause };

  // segment_run.cc
  Result<Next> begin();
  Result<SegmentOutcome> loop();
  Status go(int signo = 0);
  Result<Next> after_event(const store::Event& ev);
  Result<Next> resume_paused();
  Result<SegmentOutcome> finish_run();
  Result<Next> on_seccomp();
  Result<Next> on_signal(int signo);
  Result<Next> on_logged_signal(int signo, user_regs_struct& r, const siginfo_t& si);
  Result<Next> on_exit(const process::WaitResult& w);
  Next diverge(uint64_t pc, std::string expected, std::string actual);
  Status at_log_end(int deliver = 0);
  Status maybe_patch(int deliver = 0);
  const store::Event* next_event() const { return cursor_ < events_.size() ? &events_[cursor_] : nullptr; }
  std::string expected_here() const {
    return next_event() ? describe_event(*next_event())
                        : "the end of the segment's log (" + std::to_string(events_.size()) + " events)";
  }
  bool awaits_checkpoint() const { return has_next_ && !next_forced_ && cursor_ == events_.size(); }

  // segment_run_traps.cc; nullopt: not claimed, match it against the log.
  Result<std::optional<Next>> on_sigtrap(const siginfo_t& si, user_regs_struct& r);
  ArrivalWay way() const;
  template <class T>
  T* armed() { return std::get_if<T>(&arrival_); }

  // checkpoint_arrival_hold.cc
  Status hold_checkpoint();
  Status release_hold(int deliver);
  // checkpoint_arrival_breakpoint.cc
  Status arm_breakpoint();
  Status insert_breakpoint(bool then_patch = false);
  Status remove_breakpoint();
  // checkpoint_arrival_patched.cc
  Status try_patch(int deliver);
  // Whether the observer lets the patch in at patch_site_; where its int3s
  // after pc keep that site out, an anchor before pc that it allows
  // replaces it (planned once).
  bool observer_allows_site();
  // The tracee's code as the program has it: the observer's int3s hidden.
  CodeReader code_reader();
  Status remove_patch();
  Result<bool> drop_patch();
  void drop_rescue();
  Status use_rescue();
  void take_rescue();
  // A copy of the tracee became the tracee: a fork has no debug registers,
  // so the observer's watchpoints go into it (checkpoint_arrival_patched.cc).
  void carry_debug_registers();
  Result<Next> on_patched_match(user_regs_struct& r);
  Status refit_patch(const user_regs_struct& r);
  // checkpoint_arrival_head.cc: the CPU time run unpatched (0: none);
  // head_copy_ then holds the tracee as it was before.
  Result<uint64_t> run_unpatched_head();
  // Its second part, sized by a value counting toward the checkpoint
  // (head_progress.h); `start`: the values where the head began.
  Status run_second_head(const std::vector<uint64_t>& start);
  // One more part of it, `ns` of CPU time (false: the copy took over or no alarm).
  Result<bool> run_head_part(uint64_t ns, const char* what);
  // `ns` of the tracee's CPU time: true if its alarm stopped it, false if
  // another stop did (`w`), nullopt if no alarm could be armed.
  Result<std::optional<bool>> run_for_cpu(uint64_t ns, process::WaitResult& w);
  // The head's copy becomes the tracee again: no head ran.
  void back_to_head_copy();
  // The arrival's CPU time after the head (the patched run's): sizes later heads.
  void note_replay_ratio(uint64_t patched_ns);
  // After a head, the tracee inside the bytes `site` moves: single steps out
  // of them, or back to the head's copy; the registers where it then stands.
  Result<user_regs_struct> leave_site_after_head(const PatchSite& site, user_regs_struct now);
  // checkpoint_arrival_proof.cc
  Result<bool> trap_before_checkpoint(const siginfo_t& si, const user_regs_struct& r);
  Result<bool> prove_trampoline(const siginfo_t& si, const user_regs_struct& r);
  // checkpoint_arrival_counted.cc
  Status reach_or_arm(int deliver = 0);
  Result<bool> reach_by_count();
  Result<bool> count_before_patch(int deliver);
  void take_count_copy(process::Task& copy);
  Result<bool> take_copy_at_watch(process::Task& copy, CountingPatch& counter, const PatchSite& site,
                                  const siginfo_t& si, user_regs_struct regs);
  Status after_free_run(int signo);
  // checkpoint_arrival_rep_string.cc
  Result<bool> step_rep_iterations(user_regs_struct& r);
  Result<bool> run_rep_iterations(user_regs_struct& r, uint64_t n);
  Status run_to_debug_register(user_regs_struct& r, uint64_t addr, DrKind kind);
  // checkpoint_match.cc
  Result<Next> on_breakpoint(user_regs_struct& r);
  Result<bool> at_next_checkpoint();
  // at_next_checkpoint with `copy` standing in for the tracee, leaving no
  // trace in the outcome or the learnt differing page and word.
  Result<bool> copy_at_next_checkpoint(process::Task& copy);
  std::optional<MemCheck> differing_word_of(uint64_t vaddr, std::span<const uint8_t> live,
                                            std::span<const uint8_t> recorded);
  void note_differing_word(uint64_t vaddr, std::span<const uint8_t> live, std::span<const uint8_t> recorded);
  Status read_live_page(uint64_t vaddr, std::span<uint8_t> out);
  std::optional<std::vector<XsaveArea>> noise_areas(uint64_t vaddr, std::span<const uint8_t> live,
                                                    std::span<const uint8_t> recorded);
  struct Settle {
    std::vector<XsaveArea> xsave_areas;
    std::vector<ByteRun> dead_runs;
    std::vector<ByteRun> ahead_runs;  // a cut fast string's stores ahead of its rcx (rep_ahead.h)
  };
  bool equal_but_noise(uint64_t vaddr, std::span<const uint8_t> live, std::span<const uint8_t> recorded,
                       Settle& settle);

  ReplaySession& s_;
  process::Task& task_;
  SegmentId seg_;
  std::vector<store::Event> events_;
  size_t cursor_ = 0;
  bool has_next_ = false;
  bool next_forced_ = false;
  // Checkpoint k+1.
  user_regs_struct target_{};
  RegsAt target_at_ = RegsAt::Anywhere;
  std::optional<RepString> target_rep_;
  std::optional<AddressRange> dead_stack_;  // its dead stack (dead_stack.h)
  std::optional<uint64_t> hint_;            // its cpu_since_event_ns: the patched run's CPU budget
  // How the arrival is watched (checkpoint_arrival.h).
  CheckpointArrival arrival_;
  bool log_end_armed_ = false;  // the arrival was chosen once the log was consumed (at_log_end)
  // The hint's CPU time starts now (right after the last event): a head may run.
  bool head_allowed_ = false;
  bool head_unknown_ = false;  // adopted mid-segment: the CPU since the last event is not known
  RescueCopy head_copy_;       // the tracee before the head: try_patch's rescue copy
  uint64_t head_ns_ = 0;       // the CPU time this run's head took
  PatchState patch_ = PatchState::Allowed;
  HoldState hold_ = HoldState::Available;
  TrampolineProof proof_ = TrampolineProof::Unknown;
  std::optional<PatchSite> patch_site_;  // where the patch goes (patch_site.h), once planned
  bool anchor_tried_ = false;  // observer_allows_site() planned an anchor already
  // The patch's comparison, kept for refit_patch.
  std::optional<uint64_t> last_differing_page_;
  std::optional<MemCheck> last_differing_word_;  // of the last visit with the target's registers
  std::vector<MemCheck> mem_checks_;             // the patch compares these words too
  user_regs_struct patch_regs_{};                // what the patch compares (the target, or a "miss")
  PatchCompare patch_compare_ = PatchCompare::All;
  SegmentOutcome outcome_;
  // A counting copy (checkpoint_arrival_counted.cc) that learned nothing:
  // not tried again in this run. FreeRun: it stood at an int3 met before
  // the checkpoint and replaced the tracee there; nothing is armed until
  // that trap (Pending: the resumption onto it; Running: the next one arms).
  bool count_refused_ = false;
  bool counted_at_pc_ = false;           // the copy stands at the checkpoint's pc: arm the breakpoint there
  bool recount_ = false;                 // the observer refused it once: tried again at a later resumption
  std::optional<PatchSite> count_site_;  // where the copy counts
  enum class FreeRun { None, Pending, Running };
  FreeRun free_run_ = FreeRun::None;
  // The copy met a watchpoint first and replaced the tracee right after the
  // access: its trap, to be handed to the observer when the SIGTRAP sent to
  // bring it back arrives (the resumption onto it stops at once).
  std::optional<siginfo_t> handed_watch_trap_;
  // Observer state across a pause.
  bool started_ = false;
  bool signal_announced_ = false;  // before_signal was asked for the pending signal stop
  int reenter_signal_ = 0;         // paused before a logged signal: handle it again on resume
  int deliver_on_resume_ = 0;      // paused after consuming a signal: deliver it on resume
};

}  // namespace slsdbg::replay
