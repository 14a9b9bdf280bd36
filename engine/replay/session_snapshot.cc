#include "engine/replay/session_snapshot.h"

#include <sched.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/syscall.h>

#include "common/log.h"
#include "recorder/process/inject.h"

namespace slsdbg::replay {

SnapshotCache::~SnapshotCache() {
  for (auto& [k, s] : snapshots_) s->task.kill_and_reap();
}

Result<bool> SnapshotCache::eligible(CheckpointId k) {
  if (capacity_ == 0) return false;
  store::ProcessState st = TRY(reader_.process_state(k));
  if (st.threads.size() != 1 || st.shared_sigpending != 0 || st.threads[0].sigpending != 0) return false;
  for (const store::Mapping& m : st.mappings)
    if ((m.flags & store::flag(store::MappingFlags::Shared)) && (m.prot & PROT_WRITE)) return false;
  return true;
}

Result<SnapshotCache::Snapshot*> SnapshotCache::snapshot(CheckpointId k) {
  auto it = snapshots_.find(k.value);
  lru_.remove(k.value);
  lru_.push_front(k.value);
  if (it != snapshots_.end()) return it->second.get();
  while (snapshots_.size() >= capacity_ && !lru_.empty()) {
    const uint64_t victim = lru_.back();
    lru_.pop_back();
    auto v = snapshots_.find(victim);
    if (v != snapshots_.end()) {
      v->second->task.kill_and_reap();
      snapshots_.erase(v);
    }
  }
  process::Task task = TRY(ReplaySession::restore_process(reader_, k));
  restores_++;
  auto snap = std::make_unique<Snapshot>(Snapshot{std::move(task)});
  snap->regs = TRY(snap->task.regs());
  store::ProcessState st = TRY(reader_.process_state(k));
  snap->sigmask = st.threads[0].sigmask;
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
  const int64_t child = TRY_CTX(process::inject_syscall(snap->task, SYS_clone, {CLONE_PARENT | SIGCHLD, 0, 0, 0, 0, 0}),
                                "forking the snapshot of checkpoint " + std::to_string(k.value));
  if (child <= 0) return Error::from_errno("clone (snapshot fork)", static_cast<int>(-child));
  process::Task task(Tid(static_cast<int32_t>(child)), static_cast<pid_t>(child));
  // The auto-attached child reports its first stop.
  process::WaitResult w = TRY(task.wait());
  if (!w.stopped()) return Error::msg("the snapshot's fork died at once");
  TRY(task.set_regs(snap->regs));
  TRY(task.set_signal_mask(snap->sigmask));
  task.set_has_injection_page(true);
  forks_++;
  return ReplaySession::adopt(reader_, k, std::move(task));
}

}  // namespace slsdbg::replay
