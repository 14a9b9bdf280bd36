// engine/replay/timeline.h
#pragma once
#include <signal.h>
#include <sys/user.h>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include "common/ids.h"
#include "common/result.h"
#include "engine/replay/replay_session.h"   // Divergence
#include "store/recording.h"

namespace slsdbg::replay {

// An exact point in history (DESIGN.md, Vocabulary): in segment `checkpoint`,
// after its `event`-th event (0 = the segment's start, before any event), the
// instruction at `pc` about to execute for the `n`-th time (n >= 1) since then.
// Checkpoint K itself is Moment{K, 0, pc_of_K, 1}.
struct Moment {
  uint64_t checkpoint = 0;
  uint64_t event = 0;
  uint64_t pc = 0;
  uint64_t n = 1;
  // "K:E:0xPC:N", e.g. "12:3:0x401136:7". parse() also accepts "K" alone
  // (= checkpoint K's start). Bad text -> Error naming what is wrong.
  std::string to_string() const;
  static Result<Moment> parse(std::string_view text);
  bool operator==(const Moment&) const = default;
};

enum class Direction { Forward, Backward };
enum class Motion { Continue, Step };        // Step = one instruction
enum class WatchKind { Write, Read, Access };

enum class StopCause {
  Breakpoint,    // at a software breakpoint's address (about to execute it)
  Watchpoint,    // forward: just after the accessing instruction;
                 // backward: just before it (GDB's convention for reverse)
  Step,          // one instruction done
  Signal,        // a recorded signal is about to be delivered (signo)
  HistoryBegin,  // backward: reached checkpoint 0's start
  HistoryEnd,    // forward: the recording's last moment (no exit recorded)
  Exited,        // forward: the program exited (exit_status) or was killed (signo)
  Interrupted,   // interrupted() returned true
  Diverged,      // replay left the recording: `divergence` says where
  Exec,          // forward: the program called execve; now at the new image's
                 // first instruction (the "exec" checkpoint's start);
                 // backward: a move crossed an exec back into the old image
                 // and stopped at its execve instruction
};

struct TimelineStop {
  StopCause cause = StopCause::Step;
  uint64_t pc = 0;
  uint64_t watch_addr = 0;       // Watchpoint: the watched address that triggered
  WatchKind watch_kind = WatchKind::Write;
  int signo = 0;                 // Signal; Exited by a signal
  int exit_status = 0;           // Exited normally
  std::optional<Divergence> divergence;
  // Interrupted: the move was undone (an interrupt cut it before it passed
  // a checkpoint); false: the user is where it had reached.
  bool back_where_started = false;
};

struct TimelineOptions {
  // Polled every few ms of work; true = stop now with StopCause::Interrupted.
  std::function<bool()> interrupted = [] { return false; };
  // A descriptor readable when an interrupt may be waiting (the debugger's
  // socket; -1: none). Watched during resume() so that an interrupt cuts a
  // run deep inside one long segment too (process/wait_cut.h,
  // timeline_cut.cc), not only at its next event or checkpoint.
  std::function<int()> interrupt_fd;
  // Progress of long operations (replay scans over segments), for terminals.
  std::function<void(std::string_view what, uint64_t done, uint64_t total)> progress;
  size_t max_snapshots = 16;      // bounded cache of session snapshots
  // Forks kept at exact moments inside segments (moment_snapshots.h); 0 = none.
  size_t max_moment_snapshots = 48;
  // A one-shot command (slsdbg last-write) exits after its query: the query
  // need not replay its way back to where it started.
  bool one_shot = false;
};

class Timeline {
 public:
  // A timeline over `reader` (which must outlive it), positioned at checkpoint 0's start.
  static Result<std::unique_ptr<Timeline>> open(const store::RecordingReader& reader, TimelineOptions options = {});
  virtual ~Timeline();

  // --- where we are ---
  // Exact; may re-execute part of the segment to count (cheap when known).
  Result<Moment> current_moment();
  CheckpointId current_segment() const;
  uint64_t checkpoint_count() const;
  TimelineStop last_stop() const;

  // --- moving ---
  Result<TimelineStop> goto_checkpoint(CheckpointId k);
  Result<TimelineStop> goto_moment(const Moment& m);     // Error if m is not in history
  Result<TimelineStop> resume(Direction direction, Motion motion);

  // --- breakpoints and watchpoints (persist across moves) ---
  // Any number; invisible to reads. An address not mapped yet (a shared
  // library's code before it is loaded) is inserted once it is mapped.
  Status add_breakpoint(uint64_t addr);
  Status remove_breakpoint(uint64_t addr);
  // Debug registers: up to 4 at once, len 1/2/4/8 aligned to len (else Error).
  Status add_watchpoint(WatchKind kind, uint64_t addr, uint64_t len);
  Status remove_watchpoint(WatchKind kind, uint64_t addr, uint64_t len);

  // --- the state at the current moment (the thread of the recording) ---
  Tid thread() const;                                     // the recorded tid
  pid_t recorded_pid() const;
  Result<user_regs_struct> regs();
  Result<std::vector<uint8_t>> xsave();                   // NT_X86_XSTATE layout
  // Up to out.size() bytes from addr; returns how many were readable (an
  // unreadable start is an Error). Breakpoint bytes read as the original.
  Result<size_t> read_memory(uint64_t addr, std::span<uint8_t> out);

  const store::RecordingReader& recording() const;
  // The replayed process's memory map now, and the siginfo of the recorded
  // signal about to be delivered (nullopt unless stopped at a Signal);
  // timeline_live.cc.
  Result<std::vector<store::Mapping>> live_mappings();
  Result<std::optional<siginfo_t>> pending_siginfo();
  // A forked copy of the replayed process at this moment, for a diversion;
  // the caller owns (and kills) it. History is not affected.
  Result<process::Task> fork_current();

  // --- who wrote this? (timeline_last_write.cc) ---
  // The last write to [addr, addr+len) before the current moment: a reverse
  // continue with write watchpoints on those bytes only (at most 2 aligned
  // pieces of 1/2/4/8 bytes, else Error), replaying only the segments whose
  // dirty pages or log can hold such a write (write_filter.h). When found,
  // `at_write` runs while the timeline stands right before the writing
  // instruction (a syscall's writes: at its `syscall`), to inspect it; then
  // the timeline goes back where it was (unless options.one_shot: then it
  // stays at the write). nullopt: no write in history.
  struct LastWrite {
    Moment moment;          // right before the writing instruction
    uint64_t pc = 0;
  };
  Result<std::optional<LastWrite>> last_write(uint64_t addr, uint64_t len,
                                              const std::function<Status(const LastWrite&)>& at_write = {});

  // How many times pc runs in segment k after its event e and before the
  // next event (or the segment's end): Moment{k, e, pc, n} is in history for
  // n in [1, count]. One forward run, counted in the tracee where it can;
  // the timeline then goes back where it was (timeline_arrivals.cc).
  Result<uint64_t> arrivals(uint64_t k, uint64_t e, uint64_t pc);

  // How moves were made (tests, benchmarks): processes restored from the
  // store, sessions forked from snapshots, snapshots held; segments that
  // Continue scans with only write watchpoints replayed and skipped (since
  // the timeline opened).
  struct Stats {
    uint64_t restores = 0;
    uint64_t snapshot_forks = 0;
    uint64_t snapshots = 0;
    uint64_t segments_replayed = 0;
    uint64_t segments_skipped = 0;
    uint64_t moment_snapshots_taken = 0;  // forks kept at moments inside segments
    uint64_t moment_snapshots_used = 0;   // moves that started from one
    uint64_t probe_traps = 0;  // arrivals of navigation probes counted by a debug-register trap
    uint64_t watch_traps = 0;  // watchpoint traps taken (forward moves and scans)
    uint64_t checkpoint_debug_exceptions = 0;  // the perf breakpoint's, one per visit of a checkpoint's pc
  };
  Stats stats() const;

 private:
  class Impl;
  explicit Timeline(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace slsdbg::replay
