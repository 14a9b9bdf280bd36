// CheckpointWriter: the recording's store, with checkpoints written on a
// thread of their own. Storing a checkpoint (pages, tree, the segment's event
// log, fsyncs, the catalog commit) takes milliseconds that the tracee used to
// wait for; now it resumes as soon as capture is done. The store's writer is
// used by one thread at a time: events logged while a checkpoint is being
// stored are held here and appended, in order, once it is stored.
//
// Invariant: DirtyPage::data of a checkpoint in flight points into capture's
// buffer, valid until the next capture; so wait() comes before every capture.
#pragma once

#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/result.h"
#include "store/recording.h"

namespace slsdbg::recorder {

class CheckpointWriter {
 public:
  // The thread runs on `cpus` (the recorder's CPUs before it pinned itself
  // to the tracee's), so the store's work overlaps the program's.
  static Result<std::unique_ptr<CheckpointWriter>> start(std::unique_ptr<store::RecordingWriter> writer,
                                                         const cpu_set_t& cpus);
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  Status append_event(const store::Event& event);

  // Stores the checkpoint on the thread; its error, if any, is returned by a
  // later call (append_event, wait, add_now, finish).
  Status add_in_background(store::CheckpointInput input, std::string reason);
  // Stores it now (--verify reads it back at once).
  Result<CheckpointId> add_now(const store::CheckpointInput& input, const std::string& reason);

  // Until the checkpoint in flight, if any, is stored and the events held
  // meanwhile are appended.
  Status wait();
  Status finish();

 private:
  explicit CheckpointWriter(std::unique_ptr<store::RecordingWriter> writer) : writer_(std::move(writer)) {}
  void thread_main();
  Status collect();  // the job is done: its status, then the held events

  std::unique_ptr<store::RecordingWriter> writer_;
  bool in_flight_ = false;             // main thread: a job was handed over, not collected
  std::vector<store::Event> held_;     // main thread: events logged meanwhile

  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<std::pair<store::CheckpointInput, std::string>> job_;  // guarded by mu_
  std::optional<Status> job_status_;                                 // guarded by mu_
  std::atomic<bool> job_done_{false};  // lock-free check on the event path
  bool quit_ = false;                  // guarded by mu_
};

}  // namespace slsdbg::recorder
