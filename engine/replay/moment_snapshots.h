// Moment snapshots: stopped copies (forks) of the replayed process at exact
// Moments inside a segment, made while navigation passes them, so that a
// later move to the same pc's m-th arrival starts from the nearest earlier
// copy instead of counting every arrival again from the checkpoint (a #DB per
// arrival, about 30 us here). Reverse steps in a hot loop far from any
// checkpoint then cost a fork and a few single steps (engine/replay/README.md).
//
// Only moments not right after a signal event (the signal is then consumed
// but not delivered): a session adopted there replays the rest of the
// segment's log, exactly as the run that made the copy did. The
// copies hold the program's own code (the navigator's int3 bytes are lifted
// for the fork) and the navigator's breakpoint counts at that moment. At most
// `capacity` copies, least recently used dropped first.
#pragma once

#include <sys/user.h>

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "common/result.h"
#include "engine/replay/timeline.h"
#include "process/task.h"

namespace slsdbg::replay {

struct MomentSnapshot {
  Moment moment;
  uint64_t steps = 0;  // > 0: that many single steps after the moment
  process::Task task;
  user_regs_struct regs{};
  uint64_t sigmask = 0;
  std::map<uint64_t, uint64_t> bp_count;  // arrivals since the event, by breakpoint address
  std::set<uint64_t> bp_valid;            // breakpoints whose count is exact
};

class MomentSnapshots {
 public:
  explicit MomentSnapshots(size_t capacity) : capacity_(capacity) {}
  ~MomentSnapshots();
  MomentSnapshots(const MomentSnapshots&) = delete;
  MomentSnapshots& operator=(const MomentSnapshots&) = delete;

  // The copy at (k, e, pc, n') with the largest n' <= m.n, if any.
  MomentSnapshot* nearest_before(const Moment& m);
  // The copy at m + s' single steps with the largest s' <= steps (s' >= 1).
  MomentSnapshot* nearest_steps(const Moment& m, uint64_t steps);
  bool has(const Moment& m, uint64_t steps = 0) const;
  // Forks `live` (stopped at m + steps) into a kept copy; the caller has
  // lifted its int3 bytes. Refused copies (capacity 0) are not an error.
  Status take(process::Task& live, const Moment& m, uint64_t steps, std::map<uint64_t, uint64_t> bp_count,
              std::set<uint64_t> bp_valid);
  size_t size() const { return by_moment_.size(); }
  uint64_t taken() const { return taken_; }
  uint64_t used() const { return used_; }

 private:
  using Key = std::tuple<uint64_t, uint64_t, uint64_t, uint64_t, uint64_t>;  // k, e, pc, n, steps
  static Key key(const Moment& m, uint64_t steps) { return {m.checkpoint, m.event, m.pc, m.n, steps}; }
  MomentSnapshot* use(std::map<Key, std::unique_ptr<MomentSnapshot>>::iterator it);
  size_t capacity_;
  std::map<Key, std::unique_ptr<MomentSnapshot>> by_moment_;
  std::list<Key> lru_;  // most recently used first
  uint64_t taken_ = 0;
  uint64_t used_ = 0;
};

}  // namespace slsdbg::replay
