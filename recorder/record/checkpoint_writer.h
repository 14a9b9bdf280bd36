// CheckpointWriter: the recording's store, with checkpoints written on a
// thread of their own. Storing a checkpoint (pages, tree, the segment's event
// log, fsyncs, the catalog commit) takes milliseconds, sometimes more than a
// tick; the tracee should not wait for it. So checkpoints and the events
// between them go through an ordered queue that the thread works off: the
// store's writer is single-threaded and needs checkpoint j, then segment j's
// events, then checkpoint j+1.
//
// One producer (the recorder's thread) calls everything. While the writer is
// idle with nothing queued, events are written directly on the caller's
// thread; while it is busy they are collected into one batch (no lock per
// event) that is queued ahead of the next checkpoint or once it is idle.
// Event sources (append_events) are always queued: the thread makes them.
//
// Pages: DirtyPage::data of a queued checkpoint must stay valid until it is
// stored: either `keepalive` owns that memory, or the caller wait()s before
// reusing it.
#pragma once

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "common/result.h"
#include "store/recording.h"

namespace slsdbg::recorder {

// Backpressure: add_in_background blocks while the queue (counting the
// checkpoint being stored) holds max_checkpoints, or its page data would
// pass max_bytes. A checkpoint is always admitted into an empty queue, so
// one larger than max_bytes (checkpoint 0 of a big program) still goes.
struct CheckpointQueueLimits {
  // A tick is 10 ms and a slow store (fsync stall) was seen taking ~50 ms:
  // 32 checkpoints ride out a few hundred ms of stall. Beyond that the
  // store is not keeping up at all and the recording would fall ever
  // further behind (and lose more on a crash), so the tracee waits.
  size_t max_checkpoints = 32;
  // Queued pages are copies the recorder holds; 256 MiB is a memory cost a
  // debugging session can afford and 64 typical (4 MiB) checkpoints.
  uint64_t max_bytes = uint64_t(256) << 20;
};

class CheckpointWriter {
 public:
  using Limits = CheckpointQueueLimits;

  struct Stats {
    uint64_t stored = 0;       // checkpoints stored (background and add_now)
    uint64_t blocked = 0;      // times add_in_background waited for room
    uint64_t blocked_ns = 0;   // how long, in total (the caller's stop time)
    uint64_t peak_queued = 0;  // most checkpoints queued at once
  };

  // The thread runs on `cpus` (the recorder's CPUs before it pinned itself
  // to the tracee's), so the store's work overlaps the program's; while it
  // creates the store (start_opening) not on the caller's own CPU, where the
  // tracee runs, unless the caller waits for it.
  static Result<std::unique_ptr<CheckpointWriter>> start(std::unique_ptr<store::RecordingWriter> writer,
                                                         const cpu_set_t& cpus, Limits limits = Limits());
  // As start(), but the store is created by `open` as the thread's first
  // job (its directories, SQLite catalog and fsyncs take milliseconds the
  // program can already run in); its error is returned by a later call.
  using StoreOpener = std::function<Result<std::unique_ptr<store::RecordingWriter>>()>;
  static Result<std::unique_ptr<CheckpointWriter>> start_opening(StoreOpener open, const cpu_set_t& cpus,
                                                                 Limits limits = Limits());
  // Stores what was queued (each checkpoint complete and readable), then
  // joins; does not finish the recording.
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  // Every call below returns the first store error once there was one;
  // nothing more is stored after it.

  Status append_event(const store::Event& event);
  // Events that the thread makes itself, in order with everything appended
  // before and after: `source` calls `append` for each. The caller hands
  // over raw material (a drained syscall buffer) and its decoding and
  // encoding run off the caller's CPU, which is the tracee's. `bytes` (the
  // material's size) counts against Limits::max_bytes: the caller blocks
  // while that much waits.
  using EventAppender = std::function<Status(const store::Event&)>;
  using EventSource = std::function<Status(const EventAppender& append)>;
  Status append_events(EventSource source, uint64_t bytes);

  // Queues the checkpoint and returns (blocking only for backpressure).
  // `keepalive` owns what input.dirty[i].data points into; it is released
  // once the checkpoint is stored (or dropped after an error). A store
  // error is returned by a later call.
  Status add_in_background(store::CheckpointInput input, std::string reason,
                           std::shared_ptr<const void> keepalive = nullptr);
  // Drains the queue, then stores it on this thread (--verify reads it back at once).
  Result<CheckpointId> add_now(const store::CheckpointInput& input, const std::string& reason);

  // Until everything queued (and the events collected meanwhile) is stored.
  Status wait();
  // wait(), then marks the recording complete (the thread quits: nothing
  // is stored after it).
  // Writes each summary count (store/summary.h), then finishes.
  Status finish(const std::map<std::string, uint64_t>& summary = {});

  Stats stats() const;
  // The thread's scheduling policy now (SCHED_IDLE or SCHED_OTHER).
  int thread_policy() const;

 private:
  struct CheckpointJob {
    store::CheckpointInput input;
    std::string reason;
    std::shared_ptr<const void> keepalive;
    uint64_t bytes = 0;  // page data, for the byte bound
  };
  struct OpenJob {
    StoreOpener open;
  };
  struct EventsJob {
    EventSource source;
    uint64_t bytes = 0;  // for the byte bound
  };
  using Op = std::variant<CheckpointJob, std::vector<store::Event>, OpenJob, EventsJob>;

  CheckpointWriter(std::unique_ptr<store::RecordingWriter> writer, Limits limits)
      : writer_(std::move(writer)), limits_(limits) {}
  void thread_main();
  Status run(Op& op);
  void finished_op(bool checkpoint, uint64_t bytes, Status st);  // mu_ held
  void enqueue_locked(Op op);                                     // mu_ held
  void hand_over_batch_locked();                                  // mu_ held
  bool has_room_locked(uint64_t bytes) const;                     // mu_ held
  void lift_idle_locked();                                        // mu_ held: a fair share of the CPU
  void become_idle();                                             // on the thread, mu_ not held
  void use_all_cpus();
  void tell_thread_to_quit();  // after what is queued; no-op the second time
  Status fail(Error e);                 // records the first error, returns it
  Status first_error() const;

  std::unique_ptr<store::RecordingWriter> writer_;
  const Limits limits_;
  std::vector<store::Event> batch_;  // main thread: events logged while busy, not yet queued

  std::thread thread_;
  pthread_t thread_handle_{};
  std::atomic<pid_t> thread_tid_{0};  // the thread's kernel id, set first thing on it
  cpu_set_t all_cpus_{};
  mutable std::mutex mu_;
  std::condition_variable work_cv_;   // the thread: something queued, or quit
  std::condition_variable done_cv_;   // the caller: an operation finished
  std::deque<Op> queue_;              // guarded by mu_
  size_t queued_checkpoints_ = 0;     // guarded by mu_; queued or being stored
  uint64_t queued_bytes_ = 0;         // guarded by mu_
  uint64_t queued_event_bytes_ = 0;   // guarded by mu_; EventsJob bytes queued or being written
  std::optional<Error> error_;        // guarded by mu_; the first store error
  Stats stats_;                       // guarded by mu_
  bool quit_ = false;                 // guarded by mu_

  // Operations queued and not yet done. Decremented (release) after the
  // thread's last use of writer_ for it: reading 0 (acquire) lets the caller
  // use writer_ itself, since only the caller queues more.
  std::atomic<uint64_t> pending_{0};
  std::atomic<bool> failed_{false};   // error_ is set (lock-free check)
  // The thread's scheduling class: SCHED_IDLE while it keeps up (with
  // CAP_SYS_NICE only, which leaving it needs), SCHED_OTHER when behind.
  bool idle_class_allowed_ = false;   // set before any job is queued
  std::atomic<bool> idle_{false};     // changed under mu_; the class follows (become_idle)
};

}  // namespace slsdbg::recorder
