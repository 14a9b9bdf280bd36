// Session snapshots: pristine restored copies of checkpoints, kept stopped,
// from which replay sessions are forked instead of restored again (a fork of a
// small process costs about a millisecond here; a restore several, or seconds
// for large eager restores).
//
// How: clone(CLONE_PARENT | SIGCHLD) injected into the stopped snapshot; the
// child is auto-attached (PTRACE_O_TRACEFORK, set at spawn) and, thanks to
// CLONE_PARENT, is our child, so we reap it and the snapshot never gets a
// SIGCHLD or a zombie. The child inherits memory (copy on write), the seccomp
// filter, PR_SET_TSC, affinity, fds, handlers and the FPU state; it gets the
// snapshot's registers and the checkpoint's signal mask (injection blocks all
// signals). It does not inherit pending signals or debug registers: the
// session sends the segment's opening signals itself. Checkpoints with
// pending signals or shared writable mappings (the child would write the
// snapshot's memory), or more than 2 GiB mapped, are not snapshotted; the
// cache holds at most `capacity` snapshots and 2 GiB of mapped memory.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>

#include "common/result.h"
#include "engine/replay/replay_session.h"
#include "process/task.h"
#include "store/recording.h"

namespace slsdbg::replay {

class SnapshotCache {
 public:
  SnapshotCache(const store::RecordingReader& reader, size_t capacity) : reader_(reader), capacity_(capacity) {}
  ~SnapshotCache();
  SnapshotCache(const SnapshotCache&) = delete;
  SnapshotCache& operator=(const SnapshotCache&) = delete;

  // A session at checkpoint k: forked from its snapshot (made on first use
  // with Make, used only if present with IfPresent: a scan over many
  // segments would churn the cache), or restored when k cannot be
  // snapshotted or the cache is off.
  enum class Use { Make, IfPresent };
  Result<std::unique_ptr<ReplaySession>> session_at(CheckpointId k, Use use = Use::Make);
  size_t size() const { return snapshots_.size(); }
  uint64_t forks() const { return forks_; }
  uint64_t restores() const { return restores_; }

 private:
  struct Snapshot {
    process::Task task;
    user_regs_struct regs{};
    uint64_t sigmask = 0;
    uint64_t bytes = 0;  // accessible mapped memory (an upper bound of what it holds)
  };
  // Snapshots together hold at most this much mapped memory (each is a whole
  // process); larger checkpoints are restored every time.
  static constexpr uint64_t kByteBudget = 2ull << 30;
  Result<bool> eligible(CheckpointId k);
  void evict_lru();
  Result<Snapshot*> snapshot(CheckpointId k);

  const store::RecordingReader& reader_;
  size_t capacity_;
  std::map<uint64_t, std::unique_ptr<Snapshot>> snapshots_;
  std::list<uint64_t> lru_;  // most recently used first
  uint64_t forks_ = 0;
  uint64_t restores_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace slsdbg::replay
