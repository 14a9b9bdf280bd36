// Checkpoint capture of a ptrace-stopped tracee: registers and signal state of
// every thread, memory map, fd table, and the pages written since the previous
// capture (userfaultfd async write-protect + PAGEMAP_SCAN, or page hashes where
// the kernel lacks it). Produces a store::CheckpointInput; knows nothing of the
// recording loop that calls it.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/ids.h"
#include "common/result.h"
#include "recorder/capture/page_copier.h"
#include "store/recording.h"

namespace slsdbg::recorder {

enum class TrackerChoice { Auto, UffdWp, PageHash };

enum class CopyPath {
  ProcessVmReadv,  // the recorder reads the pages (batches of <= 1024 iovecs)
  InTracee,        // an injected stub copies them into shared staging memory
};

struct CaptureOptions {
  CopyPath copy_path = CopyPath::ProcessVmReadv;
  // Two: a helper thread copies half of a large dirty set in parallel. Not
  // the default: on this loaded 2-vCPU machine it measured no faster
  // (docs/performance.md, ## capture).
  CopyThreads copy_threads = CopyThreads::One;
  // Deferred captures: the copy thread sleeps this long before copying, so
  // that tests can make the tracee write a page first (a torn checkpoint).
  unsigned deferred_copy_delay_us_for_tests = 0;
  // The caller reports every syscall and signal delivery of the tracee's
  // threads with note_tracee_activity() (the recorder does). Then a capture
  // with nothing reported reuses the previous handlers, brk, fd table and
  // cwd, and re-reads the memory map only if it grew (a stack). The offset
  // of a file description shared with another process is then as of the
  // last re-read. Off: every capture re-reads everything.
  bool activity_reported = false;
  // Keeps the file of a private file mapping in the recording
  // (store/kept_files.h) and says whether it did. Then a new mapping of it
  // costs only the pages the program wrote, not a copy of every page. Unset:
  // every page is copied.
  std::function<bool(const store::Mapping&)> keep_file;
};

// When a capture copies its pages.
enum class CopyTiming {
  InStop,    // every page before the tracee resumes
  // Hot pages (near the stack pointer, or written in the previous interval
  // too) and pages the tracker cannot watch in the stop; the cold rest of
  // the private anonymous memory on another CPU after the tracee resumed,
  // checked by settle(). Small dirty sets are copied in the stop anyway.
  Deferred,
};

struct CapturedCheckpoint {
  store::CheckpointInput input;
  std::shared_ptr<const void> pages;  // owns the bytes input.dirty[i].data point at
  bool deferred = false;              // its cold pages arrive with settle()
};

// Where the time of the latest capture() went (for bench/capture).
struct CaptureStats {
  uint64_t total_ns = 0;
  uint64_t state_ns = 0;    // registers, signal state, maps, fds, identity
  uint64_t collect_ns = 0;  // dirty-page tracker (PAGEMAP_SCAN or hashing)
  uint64_t copy_ns = 0;     // copying the pages out of the tracee
  uint64_t pages = 0;
  uint64_t deferred_pages = 0;  // of `pages`, copied after the tracee resumed
  bool state_reused = false;    // handlers, brk, fds and cwd came from the previous capture
  // Of the pages the tracker reported written, how many it had reported at
  // one of the few captures before too (the program writes the same memory
  // again; write_history.h).
  uint64_t rewritten_pages = 0;
};

class CheckpointCapture {
 public:
  virtual ~CheckpointCapture() = default;

  // `pid` is ptrace-stopped (PTRACE_SEIZE'd) right after its execve. Sets up
  // dirty tracking (may inject syscalls into the tracee; installs the
  // injection page). Auto uses uffd-wp-async and falls back to page hashes
  // when the kernel lacks it. Every function here leaves the threads in the
  // kind of ptrace stop it found them in (see process/inject.h).
  static Result<std::unique_ptr<CheckpointCapture>> create(pid_t pid, TrackerChoice choice,
                                                           const CaptureOptions& options = {});

  // "uffd-wp-async" or "page-hash".
  virtual const char* tracker_name() const = 0;

  // Every thread in `tids` is ptrace-stopped (the thread group leader first).
  // Captures the full state and the pages written since the previous capture
  // (every populated page the first time, and of every range that appeared
  // since), then re-arms tracking. DirtyPage::data points into a buffer owned
  // by this object, valid until the next capture(). stop_ns is set to the
  // time capture() took; time_ns and ThreadState::restarted_syscall are the
  // caller's.
  virtual Result<store::CheckpointInput> capture(const std::vector<pid_t>& tids) = 0;

  // As capture(), but the result owns its pages (so several checkpoints can
  // be in flight), and with CopyTiming::Deferred the tracee may resume
  // before its cold pages are copied: call settle() before the next capture
  // and before using the result's pages, whatever the tracee did meanwhile.
  virtual Result<CapturedCheckpoint> capture_checkpoint(const std::vector<pid_t>& tids, CopyTiming timing) = 0;

  // Completes a deferred capture (a no-op for an InStop one). true: `c` is
  // exact as of its stop. false: a cold page was written before its copy was
  // confirmed (or could not be read), so `c` is torn and must be dropped;
  // its pages and cleared ranges are taken again by the next capture, which
  // should then be InStop so that checkpoints keep coming.
  virtual Result<bool> settle(CapturedCheckpoint& c) = 0;
  // Called from the copy thread as soon as a deferred copy is found torn
  // (settle() will return false): the caller may settle and retake at once.
  virtual void on_torn_copy(std::function<void()> notify) = 0;

  // Called with the tracee stopped after an address-space syscall returned
  // (mmap, munmap, mremap, brk, madvise, mprotect, shmat ...): registers new
  // mappings for tracking and remembers ranges whose contents were discarded
  // (they go to CheckpointInput::cleared at the next capture). When the
  // leader sits at the exit of a successful madvise(MADV_DONTNEED/FREE/
  // REMOVE), the range it discarded is noted as by note_discarded().
  // `tid`: the stopped thread that made the call (0: the leader).
  virtual Status note_address_space_change(pid_t tid = 0) = 0;

  virtual CaptureStats last_stats() const = 0;

  // With CaptureOptions::activity_reported: the tracee made a syscall (run by
  // itself, performed for it at its seccomp stop, or skipped) or had a signal
  // delivered since the previous capture, so the next one re-reads handlers,
  // brk, fds, cwd and the memory map. Syscalls capture injects itself need no
  // note. The first capture reads everything regardless.
  virtual void note_tracee_activity() = 0;
  // With CaptureOptions::activity_reported: the tracee made only syscalls
  // that cannot change its memory map, brk, handlers or cwd (the syscall
  // buffer's reads, writes, stats, openat and close: syscallbuf.h) since the
  // previous capture, so the next one re-reads just the fd table (offsets
  // moved, fds opened or closed). mawk's 4,132 buffered reads otherwise
  // re-read /proc/PID/maps at every checkpoint.
  virtual void note_fd_activity() { note_tracee_activity(); }

  // Called after madvise(MADV_DONTNEED/FREE/REMOVE ...) on [start, end): the
  // range goes to `cleared` and its populated pages are copied again at the
  // next capture (MADV_FREE may or may not have dropped them).
  virtual Status note_discarded(uint64_t start, uint64_t end) = 0;

  // --verify: compares every readable page of the live (stopped) tracee with
  // `reader`'s image at checkpoint k; error names the checkpoint and page.
  virtual Status verify(const store::RecordingReader& reader, CheckpointId k) = 0;
};

}  // namespace slsdbg::recorder
