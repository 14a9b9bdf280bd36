// RecordSession: runs one program under the recorder. The tracee is spawned
// under ptrace with the recorder's seccomp filter, pinned to the recorder's
// CPU; every syscall stops here, is run for real and logged with the bytes it
// wrote; rdtsc is emulated and logged; asynchronous signals are held until
// right after a checkpoint; a checkpoint is taken every interval, after an
// unmodelled syscall, and at exit.
#pragma once

#include <signal.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "recorder/capture/checkpoint_capture.h"

namespace slsdbg::recorder {

enum class VerifyMode { Off, EveryCheckpoint };

struct RecordOptions {
  std::vector<std::string> argv;  // argv[0] is the program
  std::string out_dir;            // the recording directory to create
  // Where the copies of mapped files are made once for every recording of
  // one process tree (store/kept_files.h; a member's is the root's); "": out_dir.
  std::string pool_dir;
  uint64_t interval_ns = 10'000'000;
  // The tick may stretch up to this for a program that rewrites the same
  // memory all the time (interval_policy.h); 0 or interval_ns: never.
  uint64_t max_interval_ns = 0;
  VerifyMode verify = VerifyMode::Off;
  TrackerChoice tracker = TrackerChoice::Auto;
  // Tick checkpoints copy their cold pages after the tracee resumed
  // (CopyTiming::Deferred); false: every page inside the stop.
  bool defer_copy = true;
  // The store's finish() syncs everything (WriterOptions::durable_finish).
  bool durable = false;
  // Experimental in-process fast path for syscalls that cannot block
  // (syscallbuf.h); off by default.
  bool syscall_buffer = false;
  // Records the threads of the program (thread_set.h) instead of refusing
  // clone(CLONE_THREAD); `slsdbg record` always sets it.
  bool threads = false;
};

struct RecordOutcome {
  // Stopped: the recorder got SIGINT/SIGTERM/SIGHUP (signo), took a final
  // checkpoint and killed the program there.
  enum class End { Exited, Killed, Refused, Stopped };
  End end = End::Exited;
  int exit_code = 0;        // Exited
  int signo = 0;            // Killed, Stopped
  std::string refusal;      // Refused: why recording stopped (e.g. fork)
  std::vector<std::string> execs;  // each program execve'd into: "PATH build-id HEX"
  uint64_t checkpoints = 0;
  uint64_t events = 0;
  uint64_t threads = 1;  // threads the recorded process had, the first one included
  // Resumptions that let a second thread run program code while one did
  // (ThreadSet::note_resumed): 0, or the recording is not exact.
  uint64_t thread_overlaps = 0;
  std::string tracker;
  uint64_t deferred_checkpoints = 0;  // tick checkpoints whose cold pages were copied after the stop
  uint64_t torn_checkpoints = 0;      // ... of which dropped: a page was written before its copy
  // The fatal signal, when a fault killed the program: the recording's last
  // checkpoint (reason "crash") is at the faulting instruction.
  std::optional<siginfo_t> crash;
  uint64_t backed_off_ticks = 0;
  // Child processes the program started (pids).
  std::vector<int> children;
  // Every child process of the tree recorded as a member (store/members.h),
  // grandchildren too; and why any member's recording ended early.
  std::vector<int> members;
  uint64_t group_cuts = 0, abandoned_cuts = 0;  // the tree's consistent cuts (group_cut.h)
  uint64_t shared_turns = 0;  // turns that passed between members sharing memory (shared_baton.h)
  std::vector<std::string> member_errors;      // ticks copied in the stop because deferrals tore (DeferPolicy)
  uint64_t buffered_syscalls = 0;  // syscalls logged from the buffer (record_program: the members' too)
  uint64_t patched_sites = 0;      // ... and the glibc sites patched to reach it
  uint64_t longest_interval_ns = 0;  // the longest tick interval IntervalPolicy armed
  uint64_t stretched_ticks = 0;      // ticks armed longer than --interval
};

// Errors before the program started (cannot execute, cannot create the
// recording) and failures while recording (store full, --verify mismatch)
// are returned as errors; in the second case the tracee is killed and every
// complete checkpoint stays readable.
Result<RecordOutcome> record_program(const RecordOptions& options);

}  // namespace slsdbg::recorder
