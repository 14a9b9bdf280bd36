// The Timeline's machinery (private to engine/replay): one ReplaySession at a
// time plus the traps that navigation puts into its runs.
//
// Positions. A position is re-reachable exactly as a Path: a Base (a Moment,
// or "right after event e of segment k", e = 0 being the segment's start)
// followed by Legs (forward moves: Continue with a given set of breakpoints
// and watchpoints, or single Steps). Determinism makes a Path a name for one
// point of history. current_moment() turns a Path into a Moment by running it
// again with a counting probe (debug register) on the current pc.
//
// Counting. Every trap at an address counts "arrivals" (the instruction there
// is about to execute) since the latest event; counters reset when an event is
// consumed. A pause at an address that its trap did not report (after a
// single step, a watchpoint trigger, a restore) counts the arrival itself,
// and resuming from any pause first single-steps the current instruction with
// the traps at its address lifted, so no arrival is counted twice.
//
// Debug registers: claimed from the session's owner (debug_registers.h) for
// watchpoints, the counting probe and the target probe of a goto (the
// probes count in the tracee instead where they can, timeline_counting.cc);
// at most kTimelineSlots of the four, the last being the session's
// checkpoint breakpoint (or the kernel's perf breakpoint in its place).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "engine/replay/code_function.h"
#include "engine/replay/counting_patch.h"
#include "engine/replay/moment_snapshots.h"
#include "engine/replay/position_print.h"
#include "engine/replay/program_ranges.h"
#include "engine/replay/replay_session.h"
#include "engine/replay/session_snapshot.h"
#include "engine/replay/timeline.h"
#include "engine/replay/write_filter.h"

namespace slsdbg::replay {

struct Watch {
  WatchKind kind = WatchKind::Write;
  uint64_t addr = 0;
  uint64_t len = 1;
  bool operator==(const Watch&) const = default;
};

struct TrapSet {
  std::set<uint64_t> breakpoints;
  std::vector<Watch> watches;
  bool operator==(const TrapSet&) const = default;
};

struct Base {
  uint64_t k = 0;
  uint64_t e = 0;
  bool after_event = true;  // true: right after event e (e = 0: checkpoint k itself); false: the Moment below
  uint64_t pc = 0;
  uint64_t n = 1;
  static Base at(const Moment& m) { return Base{m.checkpoint, m.event, false, m.pc, m.n}; }
  static Base after(uint64_t k, uint64_t e) { return Base{k, e, true, 0, 1}; }
  bool operator==(const Base&) const = default;
};

struct Leg {
  Motion motion = Motion::Continue;
  uint64_t count = 1;
  TrapSet traps;
  bool operator==(const Leg&) const = default;
};

struct Path {
  Base base;
  std::vector<Leg> legs;
  void push(const Leg& leg);
};

// Why a run paused (set by the observer).
enum class PauseWhy { None, Breakpoint, Watchpoint, Step, Signal, Target, TargetMissed, EventDone, Exit, Interrupted, Exec, Capped };

// How a drive() ended.
enum class Halt { Paused, SegmentEnd, HistoryEnd, Killed, Diverged };

struct DriveResult {
  Halt halt = Halt::Paused;
  std::optional<Divergence> divergence;
  int signo = 0;                 // Killed
  bool boundary_by_restore = false;  // SegmentEnd: reached by restoring a forced checkpoint
};

// A user-visible stop seen during a collecting scan (reverse continue).
struct Hit {
  uint64_t ordinal = 0;  // index among the stops a forward Continue would make
  // The scan's first checkpoint's own landing (collect_landing_hit): no
  // Continue stops there, the checkpoint itself is that moment.
  bool landing = false;
  PauseWhy why = PauseWhy::Breakpoint;
  uint64_t pc = 0;
  std::optional<Moment> moment;  // breakpoints: exact
  Watch watch;
};

// The last breakpoint or watchpoint stop of a scan's hits (timeline_watch_tail.cc).
const Hit* latest_stop(const std::vector<Hit>& hits);

class Timeline::Impl final : public RunObserver {
 public:
  Impl(const store::RecordingReader& reader, TimelineOptions options);

  // --- RunObserver (timeline_traps.cc) ---
  Status resume(process::Task& task, int signo) override;
  Result<Verdict> on_trap(process::Task& task, const siginfo_t& si) override;
  Result<Verdict> on_event_done(process::Task& task, uint64_t index, const store::Event& ev) override;
  Verdict on_syscall_exit(process::Task& task) override;
  Verdict before_signal(process::Task& task, int signo) override;
  Verdict before_exit(process::Task& task, const store::Event& exit_event) override;
  void hide_traps(uint64_t addr, std::span<uint8_t> bytes) override;
  bool allows_patch(uint64_t begin, uint64_t end) override { return allows_code_change(begin, end, true); }
  bool allows_count(uint64_t begin, uint64_t end) override { return allows_code_change(begin, end, false); }
  // `reads_memory`: the trampoline's comparison, which a read or access
  // watchpoint would see (the counting stub reads only its own page).
  bool allows_code_change(uint64_t begin, uint64_t end, bool reads_memory);
  bool stop_before_segment_end(process::Task& task, const siginfo_t& si) override;
  bool holds_checkpoint() override;
  Status before_copy(process::Task& task) override { return place_counter(task); }
  uint64_t copy_start_pc(uint64_t rip) override;
  bool counted_stub_arrival(uint64_t pc) const;
  void copy_took_over() override;

  // --- traps (timeline_traps.cc) ---
  // Makes `traps` the inserted set (breakpoints and watchpoints).
  Status set_traps(const TrapSet& traps);
  Status set_count_probe(std::optional<uint64_t> pc);
  Status set_target_probe(std::optional<Moment> target);
  Status apply_debug_registers();
  Status assign_slots();
  Status insert_breakpoint_bytes();
  void refresh_breakpoints();
  void reset_counts();
  // A pause at the current pc that no trap reported: count the arrival.
  bool count_landing(bool instruction_next);
  void end_step();
  Verdict stop_here(PauseWhy why, bool instruction_next);
  void collect_landing_hit(uint64_t pc);
  bool same_as_next(uint64_t k) const;  // checkpoints k and k+1 are one point

  // --- in-process counting (timeline_counting.cc) ---
  std::set<uint64_t> counters_wanted() const;
  bool counting_allowed() const;  // not turned off, nor off for a replay again
  void forget_counter();  // the process was replaced
  // The tracee's counts into count_value, target_count and bp_count.
  Status fold_counter();
  Status drop_counter();  // every counter stub out of the process
  Status place_counter(process::Task& task);
  // The program's code as the tracee holds it, our traps hidden (patch_site.h).
  CodeReader code_reader();
  // A counted scan: the last window (event) where a counted breakpoint ran.
  void close_window();
  struct CountedScan {
    bool usable = false;  // false: a breakpoint could not be counted in the tracee
    std::optional<Moment> last;
  };
  Result<CountedScan> scan_counted(uint64_t first, uint64_t last, std::optional<Moment> until);
  // A reverse continue's second thread (timeline_scan_ahead.cc): segments
  // lo..hi counted by a Timeline of its own, pinned to another CPU, while
  // this one scans the newer batch. Null where it cannot help (one CPU,
  // watchpoints, counting off, SLSDBG_REPLAY_SCAN_AHEAD=off).
  class ScanAhead;
  struct ScanAheadEnd {
    void operator()(ScanAhead* s) const;  // cancels it, waits for the thread
  };
  using ScanAheadPtr = std::unique_ptr<ScanAhead, ScanAheadEnd>;
  ScanAheadPtr scan_ahead(uint64_t lo, uint64_t hi);
  int scan_ahead_cpu() const;  // where it would run; -1: it would not
  // Waits for its answer; lo..hi of the scan.
  Result<CountedScan> scan_ahead_result(ScanAhead& s);
  static std::pair<uint64_t, uint64_t> scan_ahead_range(const ScanAhead& s);
  // reach_base(), reach() and scan() run their *_once, and once more with
  // debug-register probes if that failed with the counter in.
  template <class F>
  auto counted_retry(const char* what, F once) -> decltype(once());

  // Companion counts (timeline_companions.cc): pcs the next moves will
  // need, counted in the tracee beside a run's own probes so that the
  // copies it keeps know them too. A reverse-next over a call is a reverse
  // step into the callee's `ret`, GDB's reverse-continue to its entry and a
  // reverse step to the call: with the entry and the call counted by the
  // first run from the checkpoint, the others start from its copies.
  // A companion is never given a debug register: one that cannot be counted
  // in the tracee for a whole window is not known in that window.
  std::set<uint64_t> companions;                 // wanted (kept until replaced)
  std::map<uint64_t, uint64_t> companion_count;  // arrivals since the latest event
  std::set<uint64_t> companion_valid;            // counted exactly since then
  void set_companions(std::set<uint64_t> pcs);
  // At the end of a move: their stubs out (the user's int3s, reads and forks
  // see the program's code); their counts stay, placed again at the next run.
  void companions_out();
  bool companion_only(uint64_t pc) const;  // a companion and none of the run's probes
  // Its stub out for the rest of this process (another trap needs its bytes).
  Status evict_companion(uint64_t pc, const char* why);
  void drop_companion(uint64_t pc, const char* why);
  // The last arrival before c (the current position, standing there) at
  // the user's only breakpoint, from the companion counts of c's window;
  // nullopt: not known that way (scan instead).
  std::optional<Moment> last_hit_by_companions(const Moment& c);

  // Arrivals at pc in event window e of segment k (timeline_arrivals.cc).
  Result<uint64_t> count_window_once(uint64_t k, uint64_t e, uint64_t pc);
  // The count probe's arrivals in the window a drive of segment k just
  // closed (the next event, the checkpoint, the exit); the probe goes.
  Result<uint64_t> closed_window_count(const DriveResult& d, uint64_t k);

  // --- navigation (timeline_nav.cc) ---
  Status fresh(uint64_t k, SnapshotCache::Use use = SnapshotCache::Use::Make);
  // A session forked from a moment snapshot: the run state of that moment.
  Status fresh_at(MomentSnapshot& s);
  // Keeps a copy of the process at m + steps single steps (the current
  // position), if it can be adopted later (before the segment's first
  // event); failures only logged.
  void keep_moment(const Moment& m, uint64_t steps = 0);
  // Around keep_moment's fork: the counter stubs' jumps out (pages listed
  // for the copy to unmap) and back in.
  Status lift_counter_jumps(std::vector<CountingPatch>& stubs);
  Status restore_counter_jumps();
  // In a session just forked from a copy: the stubs it holds (see
  // MomentSnapshot::stubs) counting again, or unmapped.
  Status adopt_stubs(const std::vector<CountingPatch>& stubs);
  // Steps between copies kept along single-step traces from a moment.
  static constexpr uint64_t kStepCopyEvery = 256;
  bool moment_adoptable(const Moment& m) const;
  bool keep_copies = true;  // false: keep_moment() keeps nothing, but keep_only
  // Kept even while keep_copies is false (the goal of a trial reach, named
  // by lent counts; dropped again when the trial fails).
  std::optional<Moment> keep_only;
  // Drives to target->n arrivals, keeping copies on the way (see reach_base).
  Status drive_to_target(const Base& b);
  Result<DriveResult> drive(bool flow);
  void configure_replay_run(std::optional<uint64_t> probe_pc);
  Status reach_base(const Base& base, std::optional<uint64_t> count_pc);
  Status reach(const Path& path, std::optional<uint64_t> count_pc);
  Status reach_base_once(const Base& base, std::optional<uint64_t> count_pc);
  Status reach_once(const Path& path, std::optional<uint64_t> count_pc);
  Result<TimelineStop> forward(Motion motion);
  Result<Moment> resolve();
  // The current moment when the path is Continue legs stopped by the current
  // pc's breakpoint inside one event window: one counted run, checked
  // against the current registers and stack; nullopt: replay the path
  // (timeline_resolve_counted.cc).
  Result<std::optional<Moment>> resolve_counted(const Path& p, uint64_t pc);
  Result<std::optional<Moment>> resolve_counted_once(const Path& p, uint64_t pc);
  Result<TimelineStop> reverse_continue();
  // Goes to a scan's stop by path p (its Continue legs end there); for a
  // watchpoint, to the state before the access.
  Result<TimelineStop> land_on_hit(const Path& p, const Hit& hit);
  // The same for a stop of a scan from checkpoint `first`'s start.
  Result<TimelineStop> land_on_scan_hit(uint64_t first, const Hit& hit);
  // With watchpoints: the tail of c's event window first, in widening
  // windows from an anchor's earlier arrivals; nullopt: no stop there
  // or no anchor (timeline_watch_tail.cc).
  Result<std::optional<TimelineStop>> reverse_continue_in_tail(const Moment& c);
  // The user's stops from `from` up to c (one event window).
  Result<std::vector<Hit>> scan_window(const Moment& from, const Moment& c);
  // ... up to `until`, or without it to the end of from's segment.
  Result<std::vector<Hit>> scan_window_once(const Moment& from, std::optional<Moment> until);
  // Windows from the anchor's arrivals in segment k's event window e, the
  // latest first (of `arrivals` in all), widening 8-fold up to `until` (or
  // the segment's end): the landing on the last stop of the first window
  // holding one; nullopt: none in any.
  Result<std::optional<TimelineStop>> widening_windows(uint64_t k, uint64_t e, uint64_t anchor, uint64_t arrivals,
                                                       std::optional<Moment> until);
  // c's segment scanned up to c, ending after `cap` stops (why: Capped).
  Result<std::vector<Hit>> scan_capped(const Moment& c, size_t cap);
  Result<std::vector<Hit>> scan_capped_once(const Moment& c, size_t cap);
  Result<std::optional<uint64_t>> hot_stop_pc(const Moment& c);
  // The same for an earlier segment s, whose later ones hold no stop: a
  // scan capped at kAnchorCap stops; when capped, the tail of its last
  // event window, up to its end.
  struct SegmentTail {
    std::optional<TimelineStop> landed;
    bool none = false;  // the capped scan saw every stop of s: none
  };
  Result<SegmentTail> reverse_continue_in_segment_tail(uint64_t s);
  // Arrivals at pc in segment s's event window e (its last), run to its end.
  Result<uint64_t> count_to_segment_end_once(uint64_t s, uint64_t e, uint64_t pc);
  std::optional<WriteFilter> write_filter(const TrapSet& traps) const;
  Result<TimelineStop> reverse_step();
  // At a function's entry c: the moment of the direct call just before it,
  // if that is the previous instruction (timeline_step_over_call.cc).
  Result<std::optional<Moment>> call_before(const Moment& c);
  // The instruction before c named by the decoded code (a fall-through or a
  // callee's single `ret`), checked by one step; nullopt: trace instead.
  Result<std::optional<Moment>> previous_by_code(const Moment& c);
  Result<std::optional<Moment>> last_arrival_before(const Moment& c, uint64_t pc);
  Result<std::optional<Moment>> verified_before(const Moment& c, uint64_t prev);
  // At a function's entry c whose caller's call went through a stub (a PLT
  // entry, the lazy resolver): traced from that call's last arrival;
  // nullopt: not such an entry (timeline_entry_via_stub.cc).
  Result<std::optional<TimelineStop>> entry_via_stub(const Moment& c);
  Result<std::optional<TimelineStop>> entry_from_call(const Moment& c, uint64_t call);
  // c's pc is a branch target with few ways in (a loop's top, its
  // condition): the one that ran last, each checked by one step
  // (timeline_jumped_before.cc).
  Result<std::optional<Moment>> jumped_before(const Moment& c, const DecodedFunction& d);
  // prev falls through to c's pc, its only way in: prev's arrival c.n or
  // c.n - 1, checked by one step and the position's print (position_print.h).
  Result<std::optional<Moment>> fall_through_before(const Moment& c, uint64_t prev);
  // The same from the copies kept at c.pc's arrivals, which then know
  // prev's count; nullopt: not shown (timeline_fall_through.cc).
  Result<std::optional<Moment>> fall_through_by_copies(const Moment& c, uint64_t prev, const PositionPrint& at_c);
  // The pc of the first instruction of event window e of segment k, if known.
  std::optional<uint64_t> window_first_pc(uint64_t k, uint64_t e);
  // `from`: the trace starts at that exact moment (copies are kept on the way).
  Result<std::vector<uint64_t>> trace_steps(const std::function<Result<bool>(DriveResult&)>& done,
                                            std::optional<Moment> from = std::nullopt);
  Result<TimelineStop> before_event(uint64_t k, uint64_t e);
  // --- exec boundaries (timeline_exec.cc) ---
  // The latest "exec" checkpoint at or before segment k (0: none): a
  // backward move does not cross it without stopping.
  uint64_t exec_floor(uint64_t k) const;
  // At the execve of segment k - 1 that exec checkpoint k follows, as an
  // Exec stop (GDB then loads the old program's symbols).
  Result<TimelineStop> before_exec(uint64_t k);
  Result<std::vector<Hit>> scan(uint64_t first, uint64_t last, std::optional<Moment> until);
  Result<std::vector<Hit>> scan_once(uint64_t first, uint64_t last, std::optional<Moment> until);
  // The run settings both scans share: `traps` inserted, Continue up to
  // `until`, every user stop collected.
  void configure_scan(const TrapSet& traps, std::optional<Moment> until);
  // At a signal's stop (or a death by one) the instruction at pc may be the
  // one that faults: run from a counter stub's copy it would fault there.
  bool at_faulting_stop() const { return last.cause == StopCause::Signal || (at_exit && exit_signo != 0); }
  // Turns in-process counting off (when `off`) until the scope ends.
  struct CountingOff {
    Impl& t;
    bool was;
    CountingOff(Impl& impl, bool off) : t(impl), was(impl.counting_off) { t.counting_off = was || off; }
    ~CountingOff() { t.counting_off = was; }
    CountingOff(const CountingOff&) = delete;
    CountingOff& operator=(const CountingOff&) = delete;
  };
  // After an error: back where the failed move started (save_place()), or
  // checkpoint 0's start if even that cannot be reached again.
  void recover();
  void save_place();
  void known_end();
  // An interrupted backward move: stays where the scan reached, cause Interrupted.
  Result<TimelineStop> interrupted_back();
  // An interrupted move that stopped inside the syscall buffer's stub (no
  // symbol, no unwind info for a debugger) steps on to its return into the
  // program's code (timeline_stub_exit.cc); `st` then names that pc.
  Status leave_sysbuf_stub(TimelineStop& st);
  // A user's interrupt cut a run in mid-segment (timeline_cut.cc): lands
  // at a moment and says which.
  Result<TimelineStop> land_after_cut(Direction direction, uint64_t start_segment);
  Result<TimelineStop> to_checkpoint(uint64_t k);
  uint64_t pc_now();
  bool trap_at(uint64_t pc) const;
  bool probe_at(uint64_t pc) const;
  void settle_step_over();
  bool at_syscall_instruction();  // the instruction at pc_now() is `syscall`

  const store::RecordingReader& reader;
  ProgramRangesScope program_ranges{reader};  // replay's pages go elsewhere (program_ranges.h)
  TimelineOptions options;
  // The scan ahead's (timeline_scan_ahead.cc): the current replayed process
  // is published here, so that a cancel kills it (and its copies, in its
  // process group) instead of waiting for the segment's end.
  std::atomic<pid_t>* tracee_published = nullptr;
  uint64_t checkpoints = 0;
  Tid recorded_tid;
  pid_t pid = 0;
  std::unique_ptr<ReplaySession> session;
  std::unique_ptr<SnapshotCache> snapshots;  // pristine checkpoints the sessions are forked from
  std::unique_ptr<MomentSnapshots> moments;  // copies at exact moments inside segments

  // User state (persists across moves).
  TrapSet user;

  // Trap state of the current process.
  TrapSet active;
  std::map<uint64_t, uint8_t> inserted;         // int3 address -> original byte
  std::map<uint64_t, uint64_t> bp_count;        // arrivals since the latest event
  std::set<uint64_t> bp_valid;                  // breakpoints counting since the latest event
  // The debug registers of the current process (the session owns them).
  DebugRegisters& dregs() { return session->debug_registers(); }
  static bool ours(DrUse u) { return u == DrUse::Watch || u == DrUse::CountProbe || u == DrUse::TargetProbe; }
  static constexpr size_t kTimelineSlots = 3;
  std::optional<uint64_t> count_pc;
  uint64_t count_value = 0;
  uint64_t count_at_event = 0;  // count_value when the latest event reset it
  std::optional<Moment> target;
  uint64_t target_count = 0;
  std::map<uint64_t, CountingPatch> counters;  // pcs counted in the tracee
  std::set<uint64_t> counted_bps;  // a counted scan: the user's breakpoints, counted instead of int3
  bool counted_bp_refused = false;
  std::optional<uint64_t> landed_bp;  // the window's landing (not a hit) at a counted breakpoint
  std::optional<Moment> last_counted_hit;
  std::set<uint64_t> counter_refused;    // pcs that keep a debug register in this process
  std::optional<std::pair<uint64_t, uint64_t>> session_patch;  // what allows_patch last allowed
  bool counting_off = false;             // a replay again after the counter failed
  bool counter_used = false;

  // Run configuration.
  Motion motion = Motion::Continue;
  bool stop_at_user = false;
  bool collect = false;
  bool pause_signals = false;
  std::optional<uint64_t> pause_after_event;
  bool interruptible = false;  // a user's forward move (not a replay of a path)
  uint64_t flow_limit = UINT64_MAX;  // drive(flow) stops on entering a later segment
  // A forward Continue with only write watchpoints: drive(flow) restores the
  // next segment that can write them instead of replaying the ones between.
  std::optional<WriteFilter> skip_forward;
  uint64_t segments_replayed = 0;  // by scans and skipping forward moves (Stats)
  uint64_t segments_skipped = 0;
  uint64_t probe_traps = 0;  // arrivals counted by a debug-register trap, not in the tracee (Stats)
  uint64_t watch_traps = 0;  // (Stats)

  // Run state.
  uint64_t segment = 0;
  uint64_t cursor = 0;
  bool step_over_pending = false;
  // The pc whose arrival a probe's debug register counted at this pause: a
  // counter stub placed there before resuming must not count it again.
  std::optional<uint64_t> probe_counted_at;
  bool stepping = false;
  bool stepping_syscall = false;  // the instruction being stepped is a `syscall`
  // A pause wanted right after an emulated syscall: the seccomp stop is not an
  // instruction boundary, so the syscall is finished (PTRACE_SYSCALL) first.
  PauseWhy pause_at_syscall_exit = PauseWhy::None;
  std::optional<uint64_t> lifted_bp;
  PauseWhy why = PauseWhy::None;
  Watch why_watch;
  int why_signo = 0;
  int exit_status = 0;
  int exit_signo = 0;
  std::vector<Hit> hits;
  uint64_t ordinal = 0;
  size_t collect_cap = SIZE_MAX;  // a collecting scan pauses (Capped) at this many hits

  // Position.
  Path path;
  std::optional<Moment> known;
  bool at_exit = false;       // paused before the logged exit
  bool at_end = false;        // the recording's last moment (no exit logged)
  TimelineStop last;
  // Where the current public move started: a failed or refused move returns here.
  struct Place {
    Path path;
    std::optional<Moment> known;
    bool at_exit = false, at_end = false;
    int exit_signo = 0;
    TimelineStop last;
  };
  std::optional<Place> saved;
  std::optional<Base> trace_base;  // reverse steps: the latest trace's start
  // A trace from right after event e of segment k (no event inside): its
  // positions are exact Moments (pc, and how often it occurs up to there).
  std::optional<Base> moment_trace_base;
  std::vector<uint64_t> moment_trace;
  size_t moment_trace_index = 0;  // the current position's index, if known == moment_in_trace(index)
  Moment moment_in_trace(size_t i) const;
  bool no_signal_before(const Base& b) const;
  Result<TimelineStop> goto_trace_position(size_t i);
  Result<TimelineStop> land_before_last(const Base& b, const std::vector<uint64_t>& pcs);
};

}  // namespace slsdbg::replay
