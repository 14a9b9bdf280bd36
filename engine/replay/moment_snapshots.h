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
//
// A copy also knows the arrivals, up to its moment, at the pcs the run that
// made it was counting (the counting probe's pc). A later run to the m-th
// arrival at one of those pcs, or counting one, starts from it although it
// sits at another pc: naming the instruction before a moment counts the
// previous pc up to it, then goes to that pc's arrival counting the first.
#pragma once

#include <sys/user.h>

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "common/result.h"
#include "engine/replay/counting_patch.h"
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
  std::map<uint64_t, uint64_t> counts;    // pc -> arrivals since the event, up to the moment
  std::set<uint64_t> lent;                // pcs of counts derived from the code's shape (fall_through_by_copies)
  // The counter stubs the live process had when this copy was forked, their
  // jumps lifted (the copy holds the program's code) but their pages still
  // mapped: a session forked from the copy puts the jumps back and counts
  // on with them, or unmaps them (timeline_moments.cc).
  std::vector<CountingPatch> stubs;
  // Arrivals at pc up to the moment (its own pc: n), if known.
  std::optional<uint64_t> count_of(uint64_t pc) const;
};

class MomentSnapshots {
 public:
  explicit MomentSnapshots(size_t capacity) : capacity_(capacity) {}
  ~MomentSnapshots();
  MomentSnapshots(const MomentSnapshots&) = delete;
  MomentSnapshots& operator=(const MomentSnapshots&) = delete;

  // The latest copy (no steps) in m's event window from which m can be
  // reached by counting m.pc on: one at m.pc's arrival n' <= m.n, or one
  // knowing fewer than m.n arrivals at m.pc; knowing the arrivals at `also`
  // too, when given.
  MomentSnapshot* nearest_counting(const Moment& m, std::optional<uint64_t> also);
  // prev falls through to c.pc, its only way in: each copy in c's window
  // that knows j >= d arrivals at c.pc (its own pc, or a count it knows)
  // learns prev's count j - d. Returns how many did; take_back_counts()
  // undoes it when that proved wrong.
  size_t lend_counts(const Moment& c, uint64_t prev, uint64_t d);
  void take_back_counts(uint64_t k, uint64_t e, uint64_t prev);
  // The copy at m + s' single steps with the largest s' <= steps (s' >= 1).
  MomentSnapshot* nearest_steps(const Moment& m, uint64_t steps);
  bool has(const Moment& m, uint64_t steps = 0) const;
  // Kills and forgets the copy at m + steps, if kept (its name proved wrong).
  void drop(const Moment& m, uint64_t steps = 0);
  // Forks `live` (stopped at m + steps) into a kept copy; the caller has
  // lifted its int3 bytes. Refused copies (capacity 0) are not an error.
  Status take(process::Task& live, const Moment& m, uint64_t steps, std::map<uint64_t, uint64_t> bp_count,
              std::set<uint64_t> bp_valid, std::map<uint64_t, uint64_t> counts = {},
              std::vector<CountingPatch> stubs = {});
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
