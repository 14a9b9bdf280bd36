// ThreadedTimeline's state and its parts (threaded_timeline.h says what it
// does): one Impl, whose member functions live in files by purpose:
//   threaded_timeline.cc            the public ThreadedTimeline, hex_of
//   threaded_timeline_run.cc        a segment's run: start, drive, pause, its hooks' frame
//   threaded_timeline_arming.cc     what a run arms: int3s, counter stubs, watches
//   threaded_timeline_traps.cc      a run's traps: arrivals, watch hits, steps
//   threaded_timeline_moves.cc      the client's moves: goto, forward, backward, last-write
//   threaded_timeline_step_back.cc  the position before another (reverse steps)
//   threaded_timeline_tail.cc       a reverse watch searching a segment's tail first
#pragma once

#include "engine/replay/threaded_timeline.h"

#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "common/log.h"
#include "engine/replay/coroutine.h"
#include "engine/replay/exec_boundary.h"
#include "engine/replay/fork_events.h"
#include "engine/replay/go_code.h"
#include "engine/replay/move_cut.h"
#include "engine/replay/program_ranges.h"
#include "engine/replay/relay_site.h"
#include "engine/replay/task_code_reader.h"
#include "engine/replay/thread_check.h"
#include "engine/replay/thread_counters.h"
#include "engine/replay/thread_watch.h"
#include "engine/replay/trampoline_code.h"
#include "engine/replay/ways_in.h"
#include "engine/replay/write_filter.h"
#include "process/inject.h"
#include "process/proc_maps.h"
#include "process/syscallbuf_site.h"
#include "process/syscallbuf_stub.h"

namespace slsdbg::replay {

class ThreadedTimeline::Impl final : public SegmentObserver {
 public:
  // See threaded_position.h.
  using Position = ThreadedPosition;

  // A stop a reverse continue may land on: a breakpoint arrival, or a watched
  // access. For an access `at` is the position after it, or, when
  // `before_known`, already the one before it (found while single-stepping).
  struct Hit {
    Position at;
    std::optional<WatchRange> watch;
    bool before_known = false;
    Tid thread{};  // the accessing thread
    // The counter windows before this trap (a mixed collection); by default
    // after them all, as a trap once the stubs are out is.
    size_t windows_before = SIZE_MAX;
  };
  static constexpr uint8_t kInt3 = 0xcc;
  static constexpr uint64_t kMaxReverseStepDistance = 2'000'000;  // instructions stepped to find the one before
  // A loop's iteration, stepped from the previous arrival at the same pc.
  static constexpr uint64_t kMaxStepsFromPreviousArrival = 100'000;
  static std::string hex_of(uint64_t v);

  explicit Impl(const store::RecordingReader& r) : reader(r), checkpoints(r.checkpoints().size()) {}
  ~Impl() override { (void)abort_run(); }

  const store::RecordingReader& reader;
  ProgramRangesScope program_ranges{reader};  // replay's pages go elsewhere (program_ranges.h)
  uint64_t checkpoints;
  std::function<bool()> interrupted;
  std::function<int()> interrupt_fd;
  bool interrupt_requested() const { return interrupted && interrupted(); }
  std::set<uint64_t> user_bps;  // the client's breakpoints
  std::set<WatchRange> user_watches;  // the client's watched pieces
  bool catching = false;              // catch syscall
  std::set<int64_t> caught;           // its numbers; empty: every call
  bool fork_stops = false, vfork_stops = false;  // report_forks
  bool continuing = false;            // the client's forward move is a continue (a step catches nothing)
  uint64_t runs = 0;
  uint64_t skipped = 0;  // segments a reverse search did not replay (write_filter.h)

  // --- the current segment replay
  std::unique_ptr<Coroutine> co;
  uint64_t k = 0;
  std::optional<Result<SegmentOutcome>> outcome;  // once it has ended
  std::vector<SegmentThread> live;
  bool told_threads = false;                      // the first threads_changed (the restore) came
  std::map<uint64_t, uint8_t> inserted;           // int3s in memory: address -> original byte
  std::map<std::pair<int32_t, uint64_t>, uint64_t> counts;  // arrivals per (thread, pc)
  std::set<uint64_t> counted;                     // pcs with a breakpoint since the restore
  // Counted breakpoints on addresses not mapped yet (a library before ld.so
  // maps it), inserted as soon as they can be: nothing ran there before.
  std::set<uint64_t> pending;
  bool executed = false;                          // a thread ran since the restore
  std::vector<WatchRange> armed;                  // DR0.. of every thread in this run
  std::map<std::tuple<int32_t, uint64_t, WatchRange>, uint64_t> wcounts;  // accesses per (thread, pc after, range)
  Position cur;                                   // where the replay is
  // Counter stubs instead of int3s (thread_counters.h) in this run, asked
  // for by start_run's caller; `all_counted`: every wanted pc got one.
  bool use_counters = false;
  // Only the target's pc by a stub, aimed at the target arrival (a
  // collection beside watches or int3-counted breakpoints): its trap comes
  // in order with theirs, and it gives no hits (counts_target_only).
  bool target_stub_only = false;
  bool all_counted = false;
  // A collection with some breakpoints by stub and the others by int3
  // (a 1-byte instruction no stub can take: GDB's breakpoints in ld.so
  // and libc): each trap flushes the counters first, so a stub's last
  // arrival is ordered against the traps by its window.
  bool mixed_counts = false;
  ThreadCounters counters;
  // Locate and Seek also count these (the ways into a reverse step's
  // target, ways_in.h); the caller sets and clears them around its runs.
  std::set<uint64_t> also_counted;
  // A Locate run for a reverse step finds the ways into `pc` at its
  // restore, from the code as restored: a paused process may hold
  // thread_reach's patch (a jump and int3 fill inside the function), which
  // would decode as other instructions. `at_rsp`: the word at the thread's
  // stack pointer at the target; `except`: a pc whose count is not ours.
  struct WaysWanted {
    uint64_t pc = 0;
    std::optional<uint64_t> at_rsp;
    std::optional<uint64_t> except;
    bool later = false;  // instead: a countable instruction after pc (later_count_site)
  };
  std::optional<WaysWanted> ways_wanted;
  std::vector<WayIn> ways_found;
  uint64_t count_at_resume = 0;  // Locate: the target's count when its thread's last counted resume began

  // --- what the run does
  // Live: the client drives. Collect: hits before `target`. Seek: go to
  // `target` and pause. Locate: which resume of target.tid precedes the
  // arrival `target` (and which arrival since that resume it is).
  // Measure: from that resume, single-step target.tid to that arrival.
  enum class Mode { Live, Collect, Seek, Locate, Measure } mode = Mode::Live;
  std::map<int32_t, uint64_t> resumes;  // counted resumes per thread
  std::set<int32_t> after_trap;          // their next resume is not counted
  uint64_t located_m = 0, located_j = 0, last_m = 0;
  bool measuring = false;
  uint64_t measured = 0, seen = 0;
  // The last of Measure's steps that left the thread in the program's code,
  // not in the syscall buffer's stub (kNone: none did).
  static constexpr uint64_t kNone = ~0ull;
  uint64_t measured_in_program = kNone;
  // Where Measure's single steps end: at target's arrival, when the thread
  // has the registers `measure_want` (a checkpoint's), or at its next
  // counted resume (it stopped at a system call or rdtsc before it).
  enum class MeasureEnd { Arrival, Registers, NextResume } measure_end = MeasureEnd::Arrival;
  user_regs_struct measure_want{};
  // rcx and r11 left out: a call served from the log does not set them as
  // the kernel's `syscall` did.
  static bool same_regs(const user_regs_struct& a, const user_regs_struct& b);  void end_measure();
  bool stop_at_start = false;         // Live: pause at the checkpoint
  Position target;                    // Collect / Seek
  bool at_anchor = false;             // Seek: anchor reached, doing its steps
  size_t steps_done = 0;
  std::vector<Hit> hits;              // Collect: the client's breakpoints and watches hit before target
  bool target_reached = false;

  // SLSDBG_REPLAY_COUNT=trap: no counter stubs at all (int3s count).
  static bool counting_turned_off();

  // Whether a run in mode m counts by stubs: no watch (a debug register
  // would see the stub's copy of a moved access), and for a collection a
  // target whose arrivals the stubs order: a segment's end or a breakpoint
  // arrival of the client's.
  bool counters_refused = false;  // a collection is being redone with int3s
  bool heads_off = false;         // a collection is being redone without a head (allows_head)
  bool counters_fit(Mode m) const;

  // A collection up to an arrival at a pc no breakpoint of the client's
  // watches (a reverse step's landing in a hot loop, then a reverse
  // continue with a watch armed): without a stub, its int3 trapped at every
  // visit (4.5 million in one segment of thr_watch_store).
  bool counts_target_only(Mode m) const;

  // --- watches armed late (#20: a watched variable a hot loop writes)
  // A watch armed from the restore traps at every access since the
  // checkpoint: ~20 us each, minutes for a variable a thread's loop writes
  // (thr_watch_counter's watch + reverse-continue: over 5 minutes). A run whose target
  // is no watched access arms the client's watches only where it pauses
  // (a seek), or at its window's start (a reverse continue's tail, below);
  // the accesses before are not counted. Positions named after a watched
  // access's count ("watch=") are only made while the counts are exact
  // (`wcounts_exact`); otherwise a forward watch stop is named by the
  // thread's arrival at the pc after the access (name_watch_stop).
  bool watches_late = false;      // this run armed none at its restore
  bool late_armed = false;        // ... and has armed them since
  bool wcounts_exact = true;      // wcounts count every access since the restore
  // A Live watch stop whose count is not exact: named after the move.
  struct UnnamedHit {
    Tid thread;
    uint64_t pc = 0;  // after the access
  };
  std::optional<UnnamedHit> unnamed_hit;
  bool naming = false;  // name_watch_stop's run: the stop is named by its arrival
  // A reverse continue's window (backward_in_tail): a collection that
  // counts its way to `window_from` with no watch armed, then arms them and
  // collects the hits up to its target; `window_pcs` are counted too, so a
  // watched access followed by an arrival at one is named by that arrival.
  std::optional<Position> window_from;
  std::set<uint64_t> window_pcs;
  bool window_open = false;
  size_t collect_cap = SIZE_MAX;  // a collection ends after this many hits
  bool collect_capped = false;

  bool exact_watches = false;     // runs arm at the restore whatever their target
  bool target_watched() const { return target.watch.has_value(); }  Status arm_late_watches();  Status open_window();
  // A collected hit, honouring collect_cap.
  Status add_hit(Hit h);

  // --- the pause
  enum class Command { Go, Abort };
  Command command = Command::Go;
  std::optional<Tid> step_tid;  // the thread to step by one instruction when it runs
  bool paused = false;
  ThreadedStop stop;

  Status pause(ThreadedStop s);  Status finish_collect();

  // Ends the current run (its process is killed as its stack unwinds).
  Status abort_run();

  Status start_run(uint64_t seg, Mode m);

  // Runs until a pause or the run's end.
  Status drive();

  std::set<uint64_t> wanted() const;

  // The ranges a run arms: the client's, and the one its target counts.
  std::vector<WatchRange> watch_set() const;  Status arm_watches_everywhere();  unsigned slot_bit(const WatchRange& w) const;

  process::Task* any_task();

  Status insert_at(uint64_t addr);
  // Called at every resume: breakpoints waiting for their code to be
  // mapped go in; an int3 a new mapping replaced (ld.so maps a library, then
  // maps its segments over it with MAP_FIXED) goes in again. One 1-byte
  // read per breakpoint and resume.
  void refresh_breakpoints();

  Status remove_at(uint64_t addr);

  Tid running_thread_of(uint64_t seg);

  ThreadedStop plain_stop(Tid t, StopCause cause = StopCause::Step);

  // --- SegmentObserver
  // A logged system call's entry or return: a catch syscall stop, a hit of a
  // reverse continue's collection, or the anchor of a position.
  Status at_syscall(const SegmentThread& th, size_t index, const store::Event& ev, bool entry) override;

  Status threads_changed(const std::vector<SegmentThread>& threads) override;

  bool step_on_resume(Tid thread, bool own) override;
  // An error from a hook that returns no Status, given at the next trap.
  Status pending_status = ok_status();

  // Collect/Seek arrived at the target's anchor.
  Status anchor_reached(ThreadedStop s);

  Status arrived_at_breakpoint(const SegmentThread& th, uint64_t addr);

  // Thread t just after an access, its next instruction at pc (counted): its
  // next arrival there, the same state.
  Position arrival_after(Tid t, uint64_t pc) { return Position{k, false, t, pc, counts[{t.value, pc}] + 1, {}}; }

  static ThreadedStop watch_stop(Tid t, const WatchRange& w, uint64_t pc);

  // A trap of `th` after an instruction touched the watched slots `fired`.
  // Every range's count goes up (positions name the n-th access); `asked`:
  // the trap ends a single step asked for, which stays the stop.
  Status arrived_at_watch(const SegmentThread& th, unsigned fired, uint64_t pc, bool asked);

  Status step_done(const SegmentThread& th);

  Result<std::optional<process::WaitResult>> trapped(const SegmentThread& th,
                                                      const process::WaitResult& w) override;

  Result<std::optional<process::WaitResult>> trapped_here(const SegmentThread& th, const process::WaitResult& w);

  // The watches that fired for a trap whose DR6 said `fired`. This VM now
  // and then delivers a data watch's #DB with DR6 empty: the kernel then
  // takes it for an icebp (TRAP_BRKPT) and no watch bit reaches us
  // (thr_watch_store: about once in 10^5 traps, right after a store to
  // the watched word, and the segment "diverged" with a SIGTRAP). A
  // TRAP_BRKPT nobody stepped for, with one watch armed, is that watch.
  unsigned lost_dr6_watch(unsigned fired, const siginfo_t& si, bool asked) const;

  // The paused thread goes on: over the breakpoint it sits on, if any.
  Result<std::optional<process::WaitResult>> go_on(const SegmentThread& th);

  // The patch is invisible while no int3 of ours lies in its bytes and
  // nothing steps; it comes out at our first trap. A write watch may fire
  // in the trampoline's copy of a moved instruction: the segment's replay
  // shows the thread at the program's pc of that instruction
  // (PatchedBreakpoint::program_pc). Without the patch, the perf breakpoint
  // stands in, which the kernel throttles in a hot loop and then runs past
  // the checkpoint (xz -T2, docs/real-programs.md).
  bool allows_patch(uint64_t begin, uint64_t end) override;  bool reads_watched(uint64_t addr, uint64_t len) override;
  // In a collection to a segment's end (a reverse search's older segments),
  // unless one is being redone without (head_missed).
  bool allows_head() override { return mode == Mode::Collect && target.end && !step_tid && !heads_off; }

  Status lift_breakpoints() override;  Status insert_breakpoints() override;

  Status at_history_end(const store::Event* exit) override;

  // The aimed arrival's stub trapped (thread_counters.h): th stands in the
  // stub, at pc's arrival, its instruction not run yet.
  Status arrived_by_counter(const SegmentThread& th, uint64_t pc, user_regs_struct r);

  // The stubs out, their counts kept as the int3 counts go on from here:
  // each counted pc still wanted gets its int3.
  Status stop_counting();

  // --- moves

  // Brings the memory's int3s in line with the client's breakpoints before
  // the replay runs on. A breakpoint added after the replay ran has no exact
  // arrival count: the replay is redone from the checkpoint with it in.
  Status sync_breakpoints(std::optional<Tid> stepping);

  // The same for watches: the debug registers of every thread take the
  // client's ranges at the restore; one added after the replay ran has no
  // exact access count, so the segment is replayed again with it armed.
  Status sync_watches();

  // Runs segment `seg` collecting the client's breakpoint hits before `t`.
  // With counter stubs, the last arrival comes from their windows (int3
  // hits, after the stubs came out for the segment's last stretch, are
  // later); when it is ambiguous, the segment is collected again by int3s.
  Result<std::vector<Hit>> collect(uint64_t seg, const Position& t);

  // Goes to `t`, pausing there.
  Status seek(Position t);

  Status check_outcome(bool aborted_ok);

  Result<ThreadedStop> goto_checkpoint(uint64_t seg);

  // A named position (threaded_position.h). A failed seek goes back to
  // where the client was, so a bad name never moves it.
  Result<ThreadedStop> goto_position(const Position& p);

  Result<ThreadedStop> forward(Motion motion, Tid thread);

  // A forward move from `from` stopped at a watched access whose count is
  // not exact (the run armed its watches late): the same move again from a
  // seek to `from` that counts the pc after the access, so the stop is named
  // by the thread's arrival there (one more replay of the segment).
  Result<ThreadedStop> name_watch_stop(const Position& from, Motion motion, Tid thread);

  // One instruction back: drop the last single step of the position, or,
  // at a breakpoint arrival, a checkpoint's start or a thread's resume,
  // find the thread's instruction before it (position_before*), then a
  // replay to there. A search that fails leaves the replay where it was.
  Result<ThreadedStop> backward_step();

  // The position one instruction before `p` (backward_step).
  Result<Position> before(Position back);

  // The program's instruction that made the call thread t stands at (its
  // entry or return): the `syscall` before its pc, or, in the syscall
  // buffer's stub, the patched glibc site that called the stub.
  std::optional<uint64_t> call_site_of(Tid t);

  // Thread at_call.tid's arrival at `site` that made the call at_call
  // names: a Seek to the call with an int3 at the site (not a counter stub,
  // which would share the syscall buffer's patch there) counts them.
  Result<std::optional<Position>> call_site_arrival(const Position& at_call, uint64_t site);

  // The position one instruction of arrival.tid before `arrival` (a
  // breakpoint arrival or, after a watched access, the access itself): which
  // of its resumes precedes the arrival (one replay), how many instructions
  // it runs from there to the arrival (a replay single-stepping it).
  Result<Position> position_before(const Position arrival);  Result<Position> position_before_impl(const Position arrival);

  // A Locate run of target.k for `target` (set by the caller).
  Status locate_run(bool aborted_ok);

  // The same, counting also the ways into pc (ways_in.h) found at its
  // restore, which it returns; `rsp`: the thread's stack pointer at the
  // target, whose word is read now (the stack holds no patch of ours).
  Result<std::vector<WayIn>> locate_with_ways(uint64_t pc, uint64_t rsp, std::optional<uint64_t> except, bool aborted_ok);

  process::Task* task_of_thread(Tid t);

  // Thread t's arrivals at pc since the restore, in the run just made.
  // A pc is counted by its stub, then by int3 once the stubs are out
  // (stop_counting carries the stub's count over), or by int3 alone.
  uint64_t arrivals_of(Tid t, uint64_t pc) const;

  // Each way with thread t's arrivals at its count site up to the moment
  // (a site at the moment's own pc `at`, its n-th arrival: the n - 1 before it).
  std::vector<std::pair<WayIn, uint64_t>> counted_ways(Tid t, const std::vector<WayIn>& ways, uint64_t at,
                                                       uint64_t n) const;

  // Whether counter stubs may move several instructions: only in runs with
  // a watch (the reverse watch into a loop of short instructions,
  // thr_watch_short; reverse steps without watches keep one-instruction
  // sites: with several, revstep_short_head's reverse-stepi landed wrong),
  // and not in Go code (go_code.h), asked once per segment of the run
  // just restored. A goto to a named moment may take them too: a forward
  // watch stop is named by the arrival at the pc after the access
  // (name_watch_stop), often a loop's 1-4 byte instruction, which a later
  // session without the watch otherwise counted by an int3 per visit.
  std::map<uint64_t, bool> go_code_by_segment;
  bool goto_seek = false;  bool wide_sites();
  bool in_go_code();
  // The client's breakpoints among `stubbed` may take several instructions
  // in any run that counts (not the ways into a reverse step's target,
  // counted where they are, nor in Go code): a -O0 loop's 4-byte line start
  // with no padding near was counted by an int3 per visit, a
  // reverse-continue to it in a threaded program took 45 s (thr_hot_loop).
  std::set<uint64_t> wide_breakpoints(const std::set<uint64_t>& stubbed);

  // The pcs of the threads at the checkpoint that ends the segment just
  // restored (none after the last).
  std::vector<uint64_t> next_checkpoint_pcs();

  // Whether a way may be counted at `at`: a counter site there that keeps
  // clear of the next checkpoint's patched breakpoint. Counted where that
  // breakpoint goes (a tick that stopped the thread at the loop's count
  // site), the breakpoint gave way to a perf breakpoint, which ran past
  // the checkpoint in the hot loop: "checkpoint N not reached" (a reverse
  // stepi in revstep_far's loop from such a checkpoint).
  std::function<bool(uint64_t)> countable_in(const CodeReader& read);

  // The ways into pc (ways_in.h) in the process just restored, before any
  // int3 or stub of ours went in.
  std::vector<WayIn> ways_into(uint64_t pc, std::optional<uint64_t> at_rsp);
  // The same for a site after pc (later_count_site), at most one.
  std::vector<WayIn> later_site(uint64_t pc);

  // Of `ways` (a way in, and thread t's arrivals at its count site up to a
  // moment), the one whose last run is followed by that moment: a seek to
  // it plus one step of t, whose registers `is_next` checks. One segment
  // replay per way tried; nullopt when none is.
  Result<std::optional<Position>> way_in(uint64_t seg, Tid t, const std::vector<std::pair<WayIn, uint64_t>>& ways,
                                         const std::function<bool(const user_regs_struct&)>& is_next);

  // The position one instruction before `arrival` from the thread's
  // arrival before it at the same pc (n - 1): single steps of the thread
  // until it stands at pc again, at most kMaxStepsFromPreviousArrival.
  Result<Position> position_before_by_previous_arrival(const Position& arrival);

  // The position one instruction before checkpoint k's start: the last
  // instruction of the thread that ran into the checkpoint, in segment k-1.
  // Which of its resumes is its last there (one replay of k-1 to its end),
  // how many instructions it runs from that resume to the checkpoint's
  // registers (a replay single-stepping it), then one fewer; with none,
  // the system call (or rdtsc) it stopped at before that resume.
  Result<Position> position_before_checkpoint(uint64_t k_now);

  // The same when no way in can be counted (a 1-4 byte loop head, ways_in.h):
  // thread t's last arrival in segment seg at a countable instruction after
  // the checkpoint's pc (later_count_site), then single steps until it has
  // the checkpoint's registers `want`: about a loop iteration, however far
  // the thread's resume lies.
  Result<Position> position_before_checkpoint_by_later_site(uint64_t seg, Tid t, const user_regs_struct& want);

  // The position one instruction before thread t's resume m of segment seg
  // with no step since: the instruction it stopped at before (a system call
  // or rdtsc), from its resume m-1 (a replay single-stepping it until it is
  // resumed again).
  Result<Position> position_before_resume(uint64_t seg, Tid t, uint64_t m, bool program_code = false);

  static bool in_sysbuf_stub(uint64_t pc) { return process::sysbuf_stub_layout().contains(pc); }

  // Goes to a hit found by a reverse continue. A watched access stops just
  // before the accessing instruction, GDB's convention for reverse.
  // A tail window's hit is named by the thread's arrival after the access
  // (not by its count): in a loop that arrival's previous one is an
  // iteration back, and single steps from it (a seek by count) find the
  // access. Else the ways into the pc, read standing there (a Locate run,
  // which counts a pc whose site a thread at the checkpoint stands in by an
  // int3 per visit: minutes in 1 of ~36 recordings of thr_watch_counter).
  Result<ThreadedStop> land_on(const Hit& h);

  // Segments that cannot have written the watched bytes are not replayed
  // (write_filter.h): only with write watches and no breakpoint.
  std::optional<WriteFilter> write_filter() const;

  Result<ThreadedStop> backward();

  // A reverse continue with watches looks at the tail of the current
  // segment first (the single-thread Timeline's timeline_watch_tail.cc, for
  // threads). Collected from the restore, a watch traps at every access: a
  // variable a thread's loop writes costs a stop per iteration, twice more to
  // land. Here: a collection capped at kTailAnchorCap hits names the
  // (thread, pc after the access) most of them came back at, the anchor;
  // a seek counts the thread's arrivals there before `from` (no watch armed:
  // no trap per access); then windows from the d-th last arrival to `from`,
  // d widening 8-fold, are collected with the watches armed at the window's
  // start only. Any window ending at `from` is the end of history before it,
  // so its last hit is the answer when it has one. The hit is named by the
  // thread's arrival at the pc after the access, and the landing before it
  // is a reverse step from that arrival (counted, no watch armed).
  static constexpr size_t kTailAnchorCap = 64;
  static constexpr uint64_t kTailWiden = 8;
  struct TailResult {
    std::optional<ThreadedStop> landed;
    bool nothing_in_segment = false;  // the capped collection saw all of from.k's hits: none
  };  Result<TailResult> backward_in_tail(const Position& from);

  Result<std::vector<Hit>> collect_window(const Position& t, const Position& start, const std::set<uint64_t>& pcs);

  // Backward across exec checkpoint k: the old image's execve call in
  // segment k - 1, at its entry, as an exec stop (the client reloads the
  // old program's symbols, then goes on backward).
  Result<ThreadedStop> before_exec(uint64_t k);

  // A reverse continue with only write watches on the bytes asked, the
  // client's breakpoints and watches set aside; then back where it was.
  Result<std::optional<ThreadedLastWrite>> last_write(uint64_t addr, uint64_t len,
                                                      const std::function<Status(const ThreadedLastWrite&)>& at);};

}  // namespace slsdbg::replay
