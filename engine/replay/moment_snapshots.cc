#include "engine/replay/moment_snapshots.h"

#include "engine/replay/tracee_fork.h"

namespace slsdbg::replay {

MomentSnapshots::~MomentSnapshots() {
  for (auto& [key, s] : by_moment_) s->task.kill_and_reap();
}

MomentSnapshot* MomentSnapshots::use(std::map<Key, std::unique_ptr<MomentSnapshot>>::iterator it) {
  lru_.remove(it->first);
  lru_.push_front(it->first);
  used_++;
  return it->second.get();
}

MomentSnapshot* MomentSnapshots::nearest_before(const Moment& m) {
  // Keys of pc's arrivals sort by n, then steps: walk back over step copies.
  auto it = by_moment_.upper_bound(key(m, 0));
  while (it != by_moment_.begin()) {
    --it;
    const auto& [k, e, pc, n, steps] = it->first;
    if (k != m.checkpoint || e != m.event || pc != m.pc) return nullptr;
    if (steps == 0) return use(it);
  }
  return nullptr;
}

MomentSnapshot* MomentSnapshots::nearest_steps(const Moment& m, uint64_t steps) {
  auto it = by_moment_.upper_bound(key(m, steps));
  if (it == by_moment_.begin()) return nullptr;
  --it;
  if (std::get<4>(it->first) == 0 || it->second->moment != m) return nullptr;
  return use(it);
}

bool MomentSnapshots::has(const Moment& m, uint64_t steps) const { return by_moment_.count(key(m, steps)) != 0; }

Status MomentSnapshots::take(process::Task& live, const Moment& m, uint64_t steps,
                             std::map<uint64_t, uint64_t> bp_count, std::set<uint64_t> bp_valid) {
  if (capacity_ == 0 || has(m, steps)) return ok_status();
  while (by_moment_.size() >= capacity_ && !lru_.empty()) {
    auto v = by_moment_.find(lru_.back());
    lru_.pop_back();
    if (v == by_moment_.end()) continue;
    v->second->task.kill_and_reap();
    by_moment_.erase(v);
  }
  // The injected clone leaves the live tracee in another stop: its session
  // goes on from the stop it knew.
  const process::WaitResult before = live.last_stop();
  const user_regs_struct regs = TRY(live.regs());
  const uint64_t sigmask = TRY(live.signal_mask());
  Result<process::Task> copy = fork_tracee(live, regs, sigmask);
  live.set_last_stop(before);
  if (!copy.ok()) return copy.take_error();
  auto s = std::make_unique<MomentSnapshot>(
      MomentSnapshot{m, steps, std::move(*copy), regs, sigmask, std::move(bp_count), std::move(bp_valid)});
  by_moment_[key(m, steps)] = std::move(s);
  lru_.push_front(key(m, steps));
  taken_++;
  return ok_status();
}

}  // namespace slsdbg::replay
