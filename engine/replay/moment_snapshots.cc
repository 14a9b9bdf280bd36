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

std::optional<uint64_t> MomentSnapshot::count_of(uint64_t pc) const {
  if (steps != 0) return std::nullopt;
  if (pc == moment.pc) return moment.n;
  if (auto c = counts.find(pc); c != counts.end()) return c->second;
  if (bp_valid.count(pc)) {
    auto c = bp_count.find(pc);
    return c == bp_count.end() ? 0 : c->second;
  }
  return std::nullopt;
}

MomentSnapshot* MomentSnapshots::nearest_counting(const Moment& m, std::optional<uint64_t> also) {
  auto best = by_moment_.end();
  uint64_t best_n = 0;
  // Few copies (the capacity): a walk over the window's is cheap.
  for (auto it = by_moment_.lower_bound(key(Moment{m.checkpoint, m.event, 0, 0}, 0));
       it != by_moment_.end() && std::get<0>(it->first) == m.checkpoint && std::get<1>(it->first) == m.event; ++it) {
    const MomentSnapshot& s = *it->second;
    const std::optional<uint64_t> n = s.count_of(m.pc);
    if (!n) continue;
    // At another pc, its count must leave the m.n-th arrival still to come.
    if (s.moment.pc == m.pc ? *n > m.n : *n >= m.n) continue;
    if (also && !s.count_of(*also)) continue;
    const bool later = best == by_moment_.end() || *n > best_n ||
                       (*n == best_n && s.moment.pc == m.pc && best->second->moment.pc != m.pc);
    if (later) {
      best = it;
      best_n = *n;
    }
  }
  return best == by_moment_.end() ? nullptr : use(best);
}

size_t MomentSnapshots::lend_counts(const Moment& c, uint64_t prev, uint64_t d) {
  size_t lent = 0;
  // Every copy of the window that knows c.pc's count, wherever it stands:
  // prev's count follows from it as at c.pc itself (a copy standing at prev
  // knows its own). Copies at other pcs (the ret after pop rbp, say) are the
  // ones still before c's arrival when the latest reverse step left copies
  // at c.pc only at c itself.
  for (auto it = by_moment_.lower_bound(key(Moment{c.checkpoint, c.event, 0, 0}, 0));
       it != by_moment_.end() && std::get<0>(it->first) == c.checkpoint && std::get<1>(it->first) == c.event; ++it) {
    MomentSnapshot& s = *it->second;
    const std::optional<uint64_t> j = s.count_of(c.pc);  // none for step copies
    if (!j || *j < d || s.count_of(prev)) continue;
    s.counts[prev] = *j - d;
    s.lent.insert(prev);
    lent++;
  }
  return lent;
}

void MomentSnapshots::take_back_counts(uint64_t k, uint64_t e, uint64_t prev) {
  for (auto& [key, s] : by_moment_)
    if (s->moment.checkpoint == k && s->moment.event == e && s->lent.erase(prev)) s->counts.erase(prev);
}

MomentSnapshot* MomentSnapshots::nearest_steps(const Moment& m, uint64_t steps) {
  auto it = by_moment_.upper_bound(key(m, steps));
  if (it == by_moment_.begin()) return nullptr;
  --it;
  if (std::get<4>(it->first) == 0 || it->second->moment != m) return nullptr;
  return use(it);
}

bool MomentSnapshots::has(const Moment& m, uint64_t steps) const { return by_moment_.count(key(m, steps)) != 0; }

void MomentSnapshots::drop(const Moment& m, uint64_t steps) {
  auto it = by_moment_.find(key(m, steps));
  if (it == by_moment_.end()) return;
  it->second->task.kill_and_reap();
  lru_.remove(it->first);
  by_moment_.erase(it);
}

Status MomentSnapshots::take(process::Task& live, const Moment& m, uint64_t steps,
                             std::map<uint64_t, uint64_t> bp_count, std::set<uint64_t> bp_valid,
                             std::map<uint64_t, uint64_t> counts, std::vector<CountingPatch> stubs) {
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
      MomentSnapshot{m, steps, std::move(*copy), regs, sigmask, std::move(bp_count), std::move(bp_valid), std::move(counts)});
  s->stubs = std::move(stubs);
  by_moment_[key(m, steps)] = std::move(s);
  lru_.push_front(key(m, steps));
  taken_++;
  return ok_status();
}

}  // namespace slsdbg::replay
