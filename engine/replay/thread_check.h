// `replay --check` of a recording made with `record --threads`.
//
// Each segment k is replayed from its own restore of checkpoint k (every
// thread created again, restore.h), one thread at a time as the recorder ran
// them: the thread the checkpoint names as running goes first; a
// ThreadSwitch event leaves the current thread at the seccomp stop of the
// call it gave way at (the call then counts as in the kernel, its result
// comes later in the log under its tid) and resumes the named one. An event
// of a thread that waits in a syscall is served to it where the log has it,
// without waiting for the running thread: a futex wait in replay is served
// from the log and never blocks. `exit` of a thread runs for real, so the
// kernel clears its tid word and wakes pthread_join as it did when recorded;
// the replay waits until the thread is gone before going on. At the log's
// end the running thread is brought to checkpoint k+1's registers (a
// conditional breakpoint, else a breakpoint on its pc), then every thread's
// registers and the pages k+1 lists as dirty are compared.
//
// The same run drives GDB on such recordings (threaded_timeline.h) through
// a SegmentObserver: it sees the threads, the stops the log cannot name
// (breakpoints, single steps) and the end of history.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "common/result.h"
#include "engine/replay/replay_check.h"
#include "process/task.h"
#include "store/recording.h"

namespace slsdbg::replay {

// A live thread of a segment's replay: the tid the recording knew it by.
struct SegmentThread {
  Tid recorded;
  process::Task* task = nullptr;
};

// Hooks for a debugger's replay of a threaded segment. All run on the
// replaying thread, between ptrace stops; an Error aborts the segment.
class SegmentObserver {
 public:
  virtual ~SegmentObserver() = default;
  // The live threads, leader first: after the restore and after a thread ends.
  virtual Status threads_changed(const std::vector<SegmentThread>& threads) = 0;
  // A thread stopped where the log names nothing (a SIGTRAP: int3 or a
  // single step). nullopt: the observer handled it, the thread is resumed.
  // A WaitResult: the thread's stop instead (the observer ran it on to a
  // stop the log may name).
  virtual Result<std::optional<process::WaitResult>> trapped(const SegmentThread& thread,
                                                               const process::WaitResult& stop) = 0;
  // Resume `thread` by one instruction instead of a continue? `own`: a
  // resume of the thread's own, not one after a trap of the arrival at the
  // next checkpoint (those differ with the way it arrives: patch, perf
  // breakpoint, debug register), so positions that count resumes agree
  // between runs.
  virtual bool step_on_resume(Tid /*thread*/, bool /*own*/) { return false; }
  // Whether the last stretch may reach checkpoint k+1 with a patched
  // breakpoint whose jump replaces [begin, end) (asked when it is armed):
  // no int3 of the debugger there, no single step or watchpoint planned. The
  // patch comes out at the observer's first trap. Otherwise the perf
  // breakpoint, which the kernel throttles in a hot loop.
  virtual bool allows_patch(uint64_t /*begin*/, uint64_t /*end*/) { return false; }
  // Whether the last stretch may first run with nothing armed at checkpoint
  // k+1, for most of its recorded CPU time (a hot loop's pc then costs no
  // trampoline visit there). A head that may have run past the checkpoint
  // ends the run early with SegmentOutcome::head_missed, the observer's
  // counts and hits of it worth nothing: the observer runs the segment
  // again without a head.
  virtual bool allows_head() { return false; }
  // Whether a read or access watch of the debugger's covers part of [addr,
  // addr + len): the patch then does not compare that word (its read would
  // fire the watch in the trampoline).
  virtual bool reads_watched(uint64_t /*addr*/, uint64_t /*len*/) { return false; }
  // A logged system call of `thread`, event `index` of the segment: at its
  // seccomp stop before it is served (`entry`), then right after (the
  // result in its registers), as GDB's `catch syscall` shows a call. A call
  // that waited in the kernel while other threads ran has both here, where
  // the log serves it; a call a checkpoint found already done has neither.
  virtual Status at_syscall(const SegmentThread& /*thread*/, size_t /*index*/, const store::Event& /*ev*/,
                            bool /*entry*/) {
    return ok_status();
  }
  // Breakpoint bytes out of memory while checkpoint k+1's pages are compared.
  virtual Status lift_breakpoints() { return ok_status(); }
  virtual Status insert_breakpoints() { return ok_status(); }
  // The log's end (`exit` non-null: before the process's logged exit runs).
  // Whatever it returns, the segment ends after it.
  virtual Status at_history_end(const store::Event* exit) = 0;
};

// Replays segment k of a threaded recording with `observer` watching.
Result<SegmentOutcome> replay_threaded_segment(const store::RecordingReader& reader, CheckpointId k,
                                               SegmentObserver& observer);

Result<CheckReport> check_threaded_recording(const store::RecordingReader& reader,
                                             const std::function<void(uint64_t, uint64_t)>& progress);

}  // namespace slsdbg::replay
