#include "engine/replay/session_snapshot.h"

#include <sched.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/syscall.h>

#include "common/log.h"
#include "engine/replay/tracee_fork.h"
#include "process/inject.h"

namespace slsdbg::replay {

SnapshotCache::~SnapshotCache() {
  for (auto& [k, s] : snapshots_) s->task.kill_and_reap();
}

Result<bool> SnapshotCache::eligible(CheckpointId k) {
  if (capacity_ == 0) return false;
  store::ProcessState st = TRY(reader_.process_state(k));
  if (st.threads.size() != 1 || st.shared_sigpending != 0 || st.threads[0].sigpending != 0) return false;
  uint64_t bytes = 0;
  for (const store::Mapping& m : st.mappings) {
    if ((m.flags & store::flag(store::MappingFlags::Shared)) && (m.prot & PROT_WRITE)) return false;
    if (m.prot != PROT_NONE) bytes += m.end - m.start;
  }
  return bytes <= kByteBudget;
}

void SnapshotCache::evict_lru() {
  const uint64_t victim = lru_.back();
  lru_.pop_back();
  auto v = snapshots_.find(victim);
  if (v == snapshots_.end()) return;
  bytes_ -= v->second->bytes;
  v->second->task.kill_and_reap();
  snapshots_.erase(v);
}

Result<SnapshotCache::Snapshot*> SnapshotCache::snapshot(CheckpointId k) {
  auto it = snapshots_.find(k.value);
  lru_.remove(k.value);
  lru_.push_front(k.value);
  if (it != snapshots_.end()) return it->second.get();
  store::ProcessState st = TRY(reader_.process_state(k));
  uint64_t bytes = 0;
  for (const store::Mapping& m : st.mappings)
    if (m.prot != PROT_NONE) bytes += m.end - m.start;
  while (!lru_.empty() && lru_.back() != k.value &&
         (snapshots_.size() >= capacity_ || bytes_ + bytes > kByteBudget))
    evict_lru();
  process::Task task = TRY(ReplaySession::restore_process(reader_, k));
  restores_++;
  auto snap = std::make_unique<Snapshot>(Snapshot{std::move(task)});
  snap->regs = TRY(snap->task.regs());
  snap->sigmask = st.threads[0].sigmask;
  snap->bytes = bytes;
  bytes_ += bytes;
  Snapshot* raw = snap.get();
  snapshots_[k.value] = std::move(snap);
  return raw;
}

Result<std::unique_ptr<ReplaySession>> SnapshotCache::session_at(CheckpointId k, Use use) {
  if ((use == Use::IfPresent && !snapshots_.count(k.value)) || !TRY(eligible(k))) {
    restores_++;
    return ReplaySession::start(reader_, k);
  }
  Snapshot* snap = TRY(snapshot(k));
  process::Task task = TRY_CTX(fork_tracee(snap->task, snap->regs, snap->sigmask),
                               "forking the snapshot of checkpoint " + std::to_string(k.value));
  forks_++;
  return ReplaySession::adopt(reader_, k, std::move(task));
}

}  // namespace slsdbg::replay
