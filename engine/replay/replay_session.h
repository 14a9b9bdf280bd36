// ReplaySession: a live process restored from checkpoint k of a recording and
// replaying segment k from its event log (DESIGN.md: Replay and time travel).
//
// The process runs under the recorder's seccomp filter and PR_SET_TSC, set in
// the restorer before its execve, so every syscall and rdtsc stops here just
// as during recording. Each syscall is checked against the next logged event
// (number and all six argument registers: replay re-creates the exact
// registers, so any difference is a divergence). Syscalls that change kernel
// state the process depends on (address space, fs base, signal handlers and
// mask, sigreturn, fd table for read-only files) run for real and their result
// is checked; all others are skipped and get the logged result and memory
// writes. rdtsc gets the logged value; async signals are re-sent at the start
// of the segment, as the recorder did.
//
// Segment end: checkpoint k+1 is reached when every event of segment k is
// consumed and, at a software breakpoint on k+1's pc, the general registers
// and the pages k+1 lists as dirty equal the live process. A forced
// checkpoint (after an unmodelled syscall) is reached by restoring it.
#pragma once

#include <sys/user.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/ids.h"
#include "common/result.h"
#include "engine/replay/debug_registers.h"
#include "process/task.h"
#include "store/recording.h"

namespace slsdbg::replay {

// Replay did something the recording did not (or vice versa).
struct Divergence {
  SegmentId segment;
  uint64_t event_index = 0;  // the event that did not match (== count: past the log's end)
  std::string expected;
  std::string actual;
  uint64_t pc = 0;
  std::string describe() const;
};

enum class SegmentEnd {
  ReachedByExecution,  // now at checkpoint k+1's state, reached by running
  ReachedByRestore,    // k+1 is forced: the session restored it
  EndOfHistory,        // the process exited (or the recording ends) as logged
  Diverged,
  Paused,              // a RunObserver paused the run; run_segment() resumes it
};

struct SegmentOutcome {
  SegmentEnd end = SegmentEnd::Diverged;
  std::optional<Divergence> divergence;
  uint64_t events_replayed = 0;
  uint64_t pages_compared = 0;  // at the boundary
  uint64_t xsave_areas_settled = 0;  // XINUSE noise overwritten at the boundary (xsave_noise.h)
  uint64_t dead_stack_bytes_settled = 0;  // dead stack set to the recorded bytes (dead_stack.h)
  uint64_t reruns = 0;  // times the segment was replayed again from checkpoint k after a patched run failed
  bool patched = false;  // reached through the patched breakpoint (patched_breakpoint.h)
  // A threaded run's unarmed head (thread_check.cc) may have passed
  // checkpoint k+1: nothing is known of the segment; run it again without one.
  bool head_missed = false;
  uint64_t counted_reaches = 0;  // times a counting copy replaced the tracee (checkpoint_arrival_counted.cc)
  // EndOfHistory at checkpoint k itself: the recording stops there without an
  // exit (recorder killed, or stopped by a signal with a final checkpoint).
  bool cut_short = false;
};

// The hooks of a navigator (the Timeline) inside a run: its own traps
// (software breakpoints, debug registers, single steps) and how the tracee
// resumes. Without an observer a run behaves as plain replay.
class RunObserver {
 public:
  enum class Verdict { Resume, Pause, NotMine };
  virtual ~RunObserver() = default;
  // Resumes the stopped tracee (continue or single-step), delivering signo.
  virtual Status resume(process::Task& task, int signo) = 0;
  // A SIGTRAP the session does not own: Resume (the session resumes through
  // resume()), Pause, or NotMine (then it is matched against the log).
  virtual Result<Verdict> on_trap(process::Task& task, const siginfo_t& si) = 0;
  // Event `index` was just consumed (for a signal: before its delivery).
  virtual Result<Verdict> on_event_done(process::Task& task, uint64_t index, const store::Event& ev) = 0;
  // A syscall-exit stop the observer asked for (by resuming with PTRACE_SYSCALL).
  virtual Verdict on_syscall_exit(process::Task& task) = 0;
  // A logged signal is about to be delivered (not consumed yet).
  virtual Verdict before_signal(process::Task& task, int signo) = 0;
  // At the seccomp stop of the logged exit/exit_group (not run yet).
  virtual Verdict before_exit(process::Task& task, const store::Event& exit_event) = 0;
  // Live bytes read for a checkpoint comparison: show the original code
  // under the observer's breakpoints.
  virtual void hide_traps(uint64_t addr, std::span<uint8_t> bytes) = 0;
  // Whether the session may put a patched breakpoint (patched_breakpoint.h)
  // over [begin, end) until the observer's next trap: true only when the
  // observer's next resumption is a plain continue and no debug register or
  // breakpoint of its own could see the patch. The session removes the patch
  // before any trap reaches the observer.
  virtual bool allows_patch(uint64_t begin, uint64_t end) {
    (void)begin;
    (void)end;
    return false;
  }
  // Whether the session may count the arrivals at the checkpoint's pc in a
  // fork of the tracee (checkpoint_arrival_counted.cc) with a jump over
  // [begin, end): as allows_patch, but the counting stub reads nothing of
  // the program's memory, so read and access watchpoints do not keep it out.
  virtual bool allows_count(uint64_t begin, uint64_t end) { return allows_patch(begin, end); }
  // Whether this trap of the observer's is known to come before the
  // segment's end whatever the patch did (the arrival at a target moment of
  // this segment): the session then takes its patch away and goes on,
  // instead of going back to the copy made when the patch went in and
  // finishing the segment with a trap per visit of the checkpoint's pc.
  virtual bool stop_before_segment_end(process::Task& task, const siginfo_t& si) {
    (void)task;
    (void)si;
    return false;
  }
  // Whether the observer will stop the run before the segment's end (a
  // target moment of this segment not reached yet, counted in the tracee):
  // until then the session arms nothing at the checkpoint, whose pc may be
  // visited millions of times on the way, only a CPU-time alarm (past it,
  // the checkpoint gets its breakpoint after all).
  virtual bool holds_checkpoint() { return false; }
  // Before a copy of the tracee is forked to go on from later: what the
  // observer would put into the process at its next resume goes in now,
  // so that the copy holds it too (the Timeline's counter stubs).
  virtual Status before_copy(process::Task&) { return ok_status(); }
  // Where a copy forked now starts so that it runs on as the observer's next
  // resume() would run the tracee (a copy goes on by plain continues): an
  // arrival at a Timeline counter stub's pc that is counted already runs
  // from the stub's copy of the instructions, or the copy would count it a
  // second time (one arrival too many, a window's moment never found).
  virtual uint64_t copy_start_pc(uint64_t rip) { return rip; }
  // A copy made at the current stop replaced the tracee after running on:
  // what the observer meant to do at its next resumption from that stop
  // (a step over its own trap) is done.
  virtual void copy_took_over() {}
};

class ReplaySession {
 public:
  ~ReplaySession();
  ReplaySession(const ReplaySession&) = delete;
  ReplaySession& operator=(const ReplaySession&) = delete;

  // Restores checkpoint k with replay's seccomp filter and rdtsc trapping.
  static Result<std::unique_ptr<ReplaySession>> start(const store::RecordingReader& reader, CheckpointId k);
  // The restored process start() would use (for snapshots).
  static Result<process::Task> restore_process(const store::RecordingReader& reader, CheckpointId k);
  // A session over a process already at checkpoint k's state (a snapshot's
  // fork): it has no pending signals, so the session sends the segment's
  // opening ones itself. start_event > 0: the process is a copy made inside
  // segment k after that many events (not right after a signal); the run
  // starts with them consumed.
  static std::unique_ptr<ReplaySession> adopt(const store::RecordingReader& reader, CheckpointId k,
                                              process::Task task, uint64_t start_event = 0);

  // Replays the current segment until the next checkpoint, the end of history
  // or a divergence. After ReachedBy*, checkpoint() is the next one.
  Result<SegmentOutcome> run_segment();

  CheckpointId checkpoint() const { return k_; }
  process::Task& task() { return task_; }
  // The process's debug registers: the session's checkpoint breakpoint and
  // the observer's watchpoints and probes claim their slots here.
  DebugRegisters& debug_registers() { return dregs_; }
  // Optional; must outlive the runs. Paused runs keep their state.
  void set_observer(RunObserver* observer) { observer_ = observer; }
  // Events of the current segment consumed so far (0 before a run).
  uint64_t events_consumed() const;
  // Events in the current segment's log (after a run started).
  uint64_t events_in_segment() const;

  // Whether a patched run failed in any session of this process since the
  // last count that spent its budget in vain (note_patch_miss below).
  static bool patch_missed();

 private:
  ReplaySession(const store::RecordingReader& reader, CheckpointId k, process::Task task);
  class SegmentRun;

  const store::RecordingReader& reader_;
  CheckpointId k_;
  process::Task task_;
  // Restore queues the signals that open the segment; after crossing a
  // boundary by execution the session sends them itself.
  bool signals_queued_by_restore_ = true;
  RunObserver* observer_ = nullptr;
  DebugRegisters dregs_;
  std::unique_ptr<SegmentRun> run_;
  // Patched runs of the current segment that failed (their CPU budget grows
  // 4x each time; after kPatchAttempts, or any other failure, no patch).
  int patch_failures_ = 0;
  bool patch_off_ = false;
  // Patched runs that failed, in any session of this process (a Timeline
  // makes a session per restore or snapshot): later segments try the
  // counting copy first, not a patched run that may spend its whole CPU
  // budget, or run to the program's end, before the copy takes over.
  static void note_patch_miss();
  static void forget_patch_misses();  // a counting copy spent its budget in vain
  uint64_t reruns_ = 0;  // the current segment's run (kept while Paused)
  uint64_t start_event_ = 0;  // the next run starts after this many events (adopt)
};

// Registers equal for "being at a checkpoint": all general registers and
// fs/gs base; eflags without the trap and resume flags; orig_rax ignored.
// RewoundSyscall: the recorder rewound b over a `syscall` instruction, which had
// already set rcx and r11; those two are not compared. InsideRepString: b
// interrupted a rep string instruction between iterations (rep_string.h); its
// counters rcx, rsi and rdi are not compared.
enum class RegsAt { Anywhere, RewoundSyscall, InsideRepString };
bool same_general_registers(const user_regs_struct& a, const user_regs_struct& b, std::string* first_difference,
                            RegsAt at = RegsAt::Anywhere);

}  // namespace slsdbg::replay
