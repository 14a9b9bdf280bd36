// The public face of store/: a recording directory written by one writer
// (the recorder) and read by many readers (replay, dump, bisect, info).
//
//   REC/
//     catalog.db        SQLite (WAL): metadata, checkpoints, segments, bookmarks
//     pages/NNNNNN.ext  preallocated extent files of 4 KiB blocks (io_uring)
//                       (tree nodes live in the same extents; page_tree.h)
//     events/NNNNNN.log per-segment event logs
//     writer.lock       flock'ed while a writer is alive
//     retention.lock    serializes checkpoint commits with retention
//     readers.lock      shared by open readers; freed blocks wait for none
//
// Crash safety: a checkpoint is visible only once its blocks, tree nodes and
// the preceding segment's event log are written and its catalog row is
// committed; when they reach the disk is WriterOptions::sync. Formats:
// docs/formats/.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/ids.h"
#include "common/result.h"
#include "store/event.h"
#include "store/process_state.h"

namespace slsdbg::store {

struct RecordingMeta {
  std::string program;                 // path as given
  std::vector<std::string> args;       // argv including argv[0]
  std::vector<std::string> env;        // KEY=VALUE
  std::string cwd;
  std::vector<uint8_t> cpuid;          // recorded CPUID leaves (opaque to the store)
  std::string tracker;                 // "uffd-wp-async" | "page-hash" | ...
  uint64_t interval_ns = 10'000'000;
  int64_t created_unix_ns = 0;
  // The program ran more than one thread (threads are recorded by default;
  // the flag is written at the first thread switch, or at a checkpoint that
  // holds two threads): events carry several tids, checkpoints several
  // threads. Stored only when true (older recordings read as false).
  bool threads = false;
  // The process this recording holds (members.h), stored when pid > 0
  // (format 6; older recordings read as 0): its pid while recorded, its
  // parent's, and how its history starts: "spawn" (the root), "fork"
  // (checkpoint 0 is the child right after its fork), "exec" (a vfork-style
  // child, recorded from its execve).
  int pid = 0;
  int parent_pid = 0;
  std::string origin;
};

// A 4 KiB page of tracee memory written since the previous checkpoint.
struct DirtyPage {
  uint64_t vaddr = 0;                  // page aligned
  const uint8_t* data = nullptr;       // kPageSize bytes, valid during add_checkpoint
};

struct CheckpointInput {
  uint64_t time_ns = 0;                // since recording start
  uint64_t stop_ns = 0;                // how long the tracee was stopped for it
  // CPU time the tracee used since the segment's last event (or its start):
  // replay's progress hint. nullopt: not measured.
  std::optional<uint64_t> cpu_since_event_ns;
  ProcessState state;
  // Page ranges [start,end) whose previous contents are gone (munmap, new
  // mmap over them, MADV_DONTNEED): reset to zero before applying `dirty`.
  std::vector<std::pair<uint64_t, uint64_t>> cleared;
  std::vector<DirtyPage> dirty;        // for checkpoint 0: every populated page
};

struct CheckpointInfo {
  CheckpointId id;
  uint64_t time_ns = 0;
  uint64_t stop_ns = 0;
  uint64_t dirty_pages = 0;            // pages in `dirty` (including zero pages)
  uint64_t segment_events = 0;         // events in the segment that starts here
  std::optional<uint64_t> cpu_since_event_ns;  // CheckpointInput's; nullopt in format 1
  std::string reason;                  // "start" | "tick" | "signal" | "patch" (the syscall buffer patched code) | "forced" | "exec" | "exit" | "crash"
};

// What the writer did so far (for the recorder's summary and the tests).
struct WriterStats {
  uint64_t checkpoints = 0;
  uint64_t pages_in = 0;          // dirty pages handed to add_checkpoint
  uint64_t zero_pages = 0;        // ... of which all-zero (never stored)
  uint64_t dedup_pages = 0;       // ... of which identical to a stored block
  uint64_t blocks_written = 0;    // data blocks + tree nodes written
  uint64_t blocks_reused = 0;     // ... of which into blocks freed by retention
  uint64_t tree_nodes_written = 0;
  bool direct_io = false;         // extents opened O_DIRECT (false on e.g. tmpfs)
  uint64_t syncs = 0;             // times everything written so far was made durable
};

struct WriterOptions {
  // Blocks per extent file (0: kBlocksPerExtent, 1 GiB). Smaller values
  // exist so tests can cross extent boundaries cheaply.
  uint32_t blocks_per_extent = 0;
  // Auto: O_DIRECT where the filesystem takes it, else buffered. Buffered:
  // always buffered (the fallback path, selectable for tests).
  enum class Io { Auto, Buffered } io = Io::Auto;
  // When a checkpoint add_checkpoint returned survives a machine crash
  // (power loss, kernel panic). It survives the writer's own death (kill -9,
  // a crash of the recorder) either way: everything reaches the kernel in
  // commit order, blocks and event logs before the catalog row.
  //  EveryCheckpoint: at once; every commit fsyncs the event log, the
  //    extents and the catalog (milliseconds each, more under load).
  //  Deferred: at the next sync of the whole recording, made by the first
  //    commit `sync_interval_ms` or more after the previous sync, and by
  //    finish(). A machine crash loses at most that interval; a checkpoint
  //    whose catalog row reached the disk before its blocks did then fails
  //    its checksums when read (never returns other data).
  enum class Sync { EveryCheckpoint, Deferred } sync = Sync::EveryCheckpoint;
  uint32_t sync_interval_ms = 1000;
  // Deferred only: whether finish() syncs the last interval (and the
  // catalog's close its WAL copy). false: the kernel's writeback takes it to
  // disk, so a recording is ~10 ms cheaper; a machine crash within that
  // writeback's delay (about 30 s) can lose the last interval, as above.
  bool durable_finish = true;
};

class RecordingWriter {
 public:
  virtual ~RecordingWriter() = default;

  // Creates REC (0700; files 0600). Fails if REC exists and is non-empty.
  static Result<std::unique_ptr<RecordingWriter>> create(const std::string& dir, const RecordingMeta& meta,
                                                         const WriterOptions& options = {});
  // The cheap first step of create(), for a caller that runs create() later
  // on another thread: REC exists afterwards (0700) and is empty, or the
  // error create() would have given for it is returned now.
  static Status claim_dir(const std::string& dir);

  // Appends an event to the segment that follows the latest checkpoint.
  virtual Status append_event(const Event& event) = 0;

  // Writes checkpoint k (k = 0, 1, ...): first the pending segment k-1's
  // events, then pages, tree, state; commits. Returns k once committed
  // (durable as WriterOptions::sync says).
  virtual Result<CheckpointId> add_checkpoint(const CheckpointInput& input, const std::string& reason) = 0;

  // Marks the recording complete (exit status etc. in events); no more
  // writes. Everything is durable when it returns.
  virtual Status finish() = 0;

  virtual WriterStats stats() const = 0;
};

struct OpenReport {
  uint64_t complete_checkpoints = 0;
  std::optional<std::string> torn_tail;  // what was ignored after a crash, if anything
  bool finished = false;                 // finish() was reached
  bool writer_active = false;            // a live writer still holds the recording
};

class RecordingReader {
 public:
  virtual ~RecordingReader() = default;

  // Errors name the problem: "not a recording (no catalog.db)", version mismatch
  // naming both versions, truncated catalog, missing extent file.
  static Result<std::unique_ptr<RecordingReader>> open(const std::string& dir);

  // Re-reads the catalog: checkpoints committed since open() become visible
  // (a reader of a live recording sees only what was committed when it opened).
  virtual Status refresh() = 0;

  virtual const RecordingMeta& meta() const = 0;
  virtual const OpenReport& open_report() const = 0;
  virtual std::vector<CheckpointInfo> checkpoints() const = 0;

  virtual Result<ProcessState> process_state(CheckpointId k) const = 0;

  // Reads [addr, addr+out.size()) as of checkpoint k. Pages never written read
  // as zero. A checksum failure is an error naming checkpoint and address.
  virtual Status read_memory(CheckpointId k, uint64_t addr, std::span<uint8_t> out) const = 0;

  // The pages of [start, end) that checkpoint k's page tree holds, in
  // address order: the others read as zero, or as the kept file's bytes
  // (kept_files.h) in a mapping of a kept file. No page is read.
  virtual Result<std::vector<uint64_t>> captured_pages(CheckpointId k, uint64_t start, uint64_t end) const = 0;

  // The pages checkpoint k captured (its dirty set), in address order.
  virtual Status for_each_dirty_page(CheckpointId k,
                                     const std::function<Status(uint64_t vaddr, std::span<const uint8_t> data)>& fn) const = 0;
  // The addresses of those pages only (no page is read): which pages the
  // segment before checkpoint k wrote (a superset: see docs/formats/catalog.md).
  virtual Result<std::vector<uint64_t>> dirty_pages(CheckpointId k) const = 0;

  // Events of segment k, in order; and one by index. For the segment after
  // the last checkpoint of a live or crashed recording (no catalog row yet):
  // the valid prefix of its log as far as it reached the disk.
  virtual Result<std::vector<Event>> segment_events(SegmentId k) const = 0;
  virtual Result<Event> segment_event(SegmentId k, uint64_t index) const = 0;

  // Bookmarks: named moments (free text, e.g. "12:3:0x401000:1").
  virtual Status set_bookmark(const std::string& name, const std::string& moment) = 0;
  virtual Result<std::vector<std::pair<std::string, std::string>>> bookmarks() const = 0;
};

// Retention: drop every checkpoint older than `keep_from` (and the segments
// before it); keep_from and later stay fully readable; blocks no longer
// referenced by any remaining checkpoint are reused by later writes.
Status drop_checkpoints_before(const std::string& dir, CheckpointId keep_from);

}  // namespace slsdbg::store
