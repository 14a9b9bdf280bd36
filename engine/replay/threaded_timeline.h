// GDB's view of a recording made with `record --threads`: the Timeline's
// job for threaded programs, built on the threaded check's segment replay
// (thread_check.h: one thread at a time, in log order).
//
// A position is a checkpoint's start, or the n-th arrival of thread T at a
// breakpoint address since that checkpoint (every run of a segment from its
// restore repeats the same arrivals in the same order), plus single steps
// after it. Forward moves run the segment on; at its end the next
// checkpoint is restored and the run goes on there. A reverse continue
// replays the current segment from its restore counting breakpoint hits up
// to the current position, then runs again to the last hit before it;
// without one, the segment before is replayed whole, and so on back to
// checkpoint 0. Cost: two segment replays per reverse continue that finds
// its hit in the current segment, one more per earlier segment searched.
// Those replays count arrivals with counter stubs in the process
// (thread_counters.h), so a breakpoint in a hot loop costs no trap per visit.
//
// The segment's replay runs on a stack of its own (a ucontext coroutine) so
// it can pause inside a ptrace wait and resume there: the same OS thread
// stays the tracer. Moves to elsewhere abort the paused replay, which kills
// its process as it unwinds.
//
// A watched access is a position too: the n-th access of thread T to a
// range by an instruction ending at pc (debug registers DR0-DR2 of every
// thread, thread_watch.h), while the run counted every access since its
// restore. A run whose target is no watched access arms the watches only
// where it pauses (a trap per access before it would cost minutes in a hot
// loop); a forward watch stop after such a run is named by the thread's
// arrival at the pc after the access (one more replay counting it). A
// reverse continue with watches searches each segment's tail first: a
// collection capped at 64 hits names the (thread, pc) most accesses came
// back at; windows from that thread's d-th last arrival there, d widening
// 8-fold, are collected with the watches armed at the window's start
// (counted there with no trap per access); the last hit of the first window
// with one is the answer, landed on by a reverse step from its arrival.
//
// A reverse step undoes a forward single step, or finds the thread's
// instruction before a breakpoint arrival, a watched access, a checkpoint's
// start (the running thread's last instruction in the segment before,
// matched by its registers) or a resume (the system call or rdtsc it
// stopped at). From an arrival or a checkpoint's start: one replay counting
// the ways into the pc (ways_in.h) and locating the thread's resume, then
// a loop's previous arrival plus steps, or the last arrival of a way
// checked by one step (one replay per way tried), at any distance. Else
// (a watched access, a resume, no way found) one replay single-stepping
// the thread from its resume (at most 2,000,000 steps), one to land there.
//
// Each position has a name (threaded_position.h): `monitor when` prints it,
// bookmarks keep it, goto_moment comes back to it in any later session.
//
// A reverse search with only write watches skips the segments whose next
// checkpoint's dirty pages and log cannot hold a write to the watched bytes
// (write_filter.h); last_write is that search from the current position,
// the client's own breakpoints and watches set aside, and back.
//
// Fork stops (report_forks) are found the same way, at the return of each
// logged call that made a process, both ways.
//
// `catch syscall`: a forward continue also stops at the entry and the
// return of each logged system call that matches (the event's seccomp stop,
// then right after the log served it); a reverse continue at the last such
// stop before the position, collected like breakpoint hits. A call that
// waited in the kernel while other threads ran is shown where the log serves
// it, its entry right before its return.
//
// Not supported yet (refused with a message): a reverse step into a
// segment where the thread did not run, GDB's inferior calls.
#pragma once

#include <sys/user.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "common/ids.h"
#include "common/result.h"
#include "engine/replay/threaded_position.h"
#include "engine/replay/timeline.h"
#include "store/recording.h"

namespace slsdbg::replay {

// A stop of the threaded timeline: the cause as the single-thread Timeline
// gives it, and the thread it concerns.
struct ThreadedStop {
  TimelineStop stop;
  Tid thread;
  // A caught system call (catch_syscalls): its number, at its entry or its
  // return. The stop's cause is then Breakpoint.
  std::optional<int64_t> syscall_no;
  bool syscall_entry = false;
  // A fork stop (report_forks): the call at its return made process
  // `fork_child`, vfork-style when `vfork`. The cause is then Breakpoint.
  std::optional<int32_t> fork_child;
  bool vfork = false;
};

// The last write found by ThreadedTimeline::last_write: its moment (the
// thread just before the writing instruction at pc).
struct ThreadedLastWrite {
  std::string moment;
  uint64_t checkpoint = 0;
  Tid thread;
  uint64_t pc = 0;
};

class ThreadedTimeline {
 public:
  // At checkpoint 0's start. `reader` must outlive it. `interrupted` is
  // polled between segments (a segment runs to its end or a hit first): true
  // stops a move at the next checkpoint's start with StopCause::Interrupted.
  // `interrupt_fd` (as TimelineOptions::interrupt_fd) lets an interrupt cut
  // a run inside a long segment too: a backward move, or a forward one past
  // a checkpoint, then stops at the start of the segment it had reached; a
  // forward one still in its first segment goes back where it started.
  static Result<std::unique_ptr<ThreadedTimeline>> open(const store::RecordingReader& reader,
                                                        std::function<bool()> interrupted = {},
                                                        std::function<int()> interrupt_fd = {});
  ~ThreadedTimeline();

  Result<ThreadedStop> goto_checkpoint(CheckpointId k);
  // Forward: Continue runs every thread in log order to a breakpoint any of
  // them hits; Step runs until `thread` executed one instruction. Backward:
  // Continue; Step goes to the instruction before (see above), else an
  // Error, the position unchanged.
  Result<ThreadedStop> resume(Direction direction, Motion motion, Tid thread);
  ThreadedStop last_stop() const;
  // The current position's name, and a move to a named one (a failed move
  // leaves the position as it was).
  std::string moment() const;
  Result<ThreadedStop> goto_moment(const ThreadedPosition& p);

  // Stop at logged system calls: `numbers` empty means every one; off with
  // `enabled` false.
  void catch_syscalls(bool enabled, std::set<int64_t> numbers);
  // Stop also at the return of each logged call that made a process
  // (fork_events.h): forks, vfork-style calls, either or both.
  void report_forks(bool fork, bool vfork);

  Status add_breakpoint(uint64_t addr);
  Status remove_breakpoint(uint64_t addr);
  // A debug-register watch on every thread (len 1, 2, 4 or 8, aligned; at
  // most 3 at once). Forward, a thread's access stops just after it;
  // backward, just before it (StopCause::Watchpoint names the thread).
  Status add_watchpoint(WatchKind kind, uint64_t addr, uint64_t len);
  Status remove_watchpoint(WatchKind kind, uint64_t addr, uint64_t len);

  // The live threads now, leader first.
  std::vector<Tid> threads() const;
  Result<user_regs_struct> regs(Tid thread);
  Result<std::vector<uint8_t>> xsave(Tid thread);
  // Breakpoint bytes read as the original.
  Result<size_t> read_memory(uint64_t addr, std::span<uint8_t> out);
  // The replayed process's memory map now (monitor dump).
  Result<std::vector<store::Mapping>> live_mappings();

  CheckpointId current_segment() const;
  uint64_t checkpoint_count() const;
  // "checkpoint K, thread T's n-th arrival at 0xPC, +S steps" (monitor when).
  std::string position_text() const;
  // Segment replays done since open (tests, docs), and segments a reverse
  // search with write watches skipped (write_filter.h).
  uint64_t segment_runs() const;
  uint64_t segments_skipped() const;

  // The last write to [addr, addr+len) before the current position (at most
  // 3 aligned pieces of up to 8 bytes), by any thread; `at` runs while the
  // timeline is there, then it goes back. nullopt: not written since
  // checkpoint 0. The client's breakpoints and watches do not stop it.
  Result<std::optional<ThreadedLastWrite>> last_write(uint64_t addr, uint64_t len,
                                                      const std::function<Status(const ThreadedLastWrite&)>& at);

 private:
  class Impl;
  explicit ThreadedTimeline(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace slsdbg::replay
