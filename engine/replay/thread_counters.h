// In-process counting of the threaded timeline's breakpoint arrivals (#20).
// A breakpoint in a hot loop costs an int3 trap per visit (~10-20 us); a
// goroutine's loop visits it millions of times a segment, so a reverse
// continue to it, or a move to its n-th arrival, took minutes. Here each
// counted pc gets a counter stub (counting_patch.h) whose jump stays inside
// pc's own instruction where it can (plan_one_instruction_site: a goroutine
// resumed by Go's preemption at a saved pc never enters the jump's bytes).
// Where it cannot (a loop of 1-4 byte instructions with no padding near),
// in a run with a watch (the caller's `wide`), and no Go code runs (go_code.h), the stub takes several instructions
// (plan_patch_site), unless a thread stands inside them or another counted
// pc lies there.
//
// The stubs count every thread's visits in one counter each. The replay runs
// one thread at a time and tells us which (switch_to at every resume), so
// the counts since the previous switch belong to the thread that ran: per
// thread counts, and the windows (a thread's run between two switches) in
// which each pc ran, which order the arrivals of different pcs. The one
// arrival a run aims at (aim) traps: its stub's limit is set while that
// thread runs, cleared while the others do.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/ids.h"
#include "common/result.h"
#include "engine/replay/code_function.h"
#include "engine/replay/counting_patch.h"
#include "process/task.h"

namespace slsdbg::replay {

// Where a counter stub for pc may go, best first: pc's own instruction's
// site; else (when `wide`) sites of several whole instructions, pc's own
// and then an anchor before it (`several` says so). Empty with `why` when
// there is none.
std::vector<PatchSite> counter_sites(uint64_t pc, const CodeReader& read, bool wide, std::string* why = nullptr,
                                     bool* several = nullptr);

// The bytes the patched breakpoints that reach `checkpoint_pcs` take
// (plan_thread_checkpoint_site), jumps to relays included.
// A counter there makes such a breakpoint yield to a perf breakpoint,
// which traps at every visit and runs past its match in a hot loop
// ("checkpoint N not reached").
using ByteRange = std::pair<uint64_t, uint64_t>;
std::vector<ByteRange> checkpoint_patch_ranges(const std::vector<uint64_t>& checkpoint_pcs, const CodeReader& read);
// Whether `site` (its jump and its relay's) lies clear of all `ranges`.
bool clear_of(const PatchSite& site, const std::vector<ByteRange>& ranges);

class ThreadCounters {
 public:
  // Counter stubs at those of `pcs` that have a site (counter_sites);
  // returns the pcs counted. The threads stand at their checkpoint, at
  // `thread_pcs`; `wide`: sites of several instructions may be taken.
  // A site of several instructions stays clear of the bytes the patched
  // breakpoint for each of `keep_clear` (the next checkpoint's pcs) takes.
  // `also_wide`: pcs that may take several instructions when `wide` is not set.
  // With `move_threads`, a thread standing among the instructions the stub
  // of one of `also_wide` moves, at pc or after it, does not keep the stub
  // out (elsewhere it still does: the ways into a reverse step's target
  // keep their sites as before): it is to resume
  // at their copy in the stub (at pc itself: at the count, an arrival, as
  // at a jump or an int3 there); `move_threads` gets those moves (rip now
  // -> rip to set), which the caller makes before any thread runs.
  std::set<uint64_t> install(process::Task& task, const std::set<uint64_t>& pcs,
                             const std::vector<uint64_t>& thread_pcs, bool wide,
                             const std::vector<uint64_t>& keep_clear = {},
                             const std::set<uint64_t>& also_wide = {},
                             std::map<uint64_t, uint64_t>* move_threads = nullptr);
  bool empty() const { return stubs_.empty(); }

  // `next` starts running: the counts since the last switch go to the
  // thread that ran, and the aimed stub's limit follows `next`.
  Status switch_to(process::Task& task, Tid next);
  // The counts since the last switch go to the running thread (at its stop).
  Status flush(process::Task& task);
  // Trap at `thread`'s n-th arrival at pc (one of the counted pcs).
  void aim(Tid thread, uint64_t pc, uint64_t n);
  // The counted pc whose limit int3 leaves a thread at `rip`.
  std::optional<uint64_t> reached(uint64_t rip) const;
  // A watch that fired in a stub: where the thread stands in the program
  // (CountingPatch::site_end_at), or nullopt with `inside` set when rip is
  // elsewhere in a stub (a moved rep-string instruction mid-way).
  std::optional<uint64_t> site_end_at(uint64_t rip, bool& inside) const;
  // The program's address of the moved instruction a thread at `rip`
  // stands at (CountingPatch::moved_from), nullopt if none.
  std::optional<uint64_t> moved_from(uint64_t rip) const;

  uint64_t count(Tid thread, uint64_t pc) const;
  const std::map<std::pair<int32_t, uint64_t>, uint64_t>& totals() const { return totals_; }

  // The latest arrival at one of the counted pcs, with `latest_left_out`
  // (the aimed arrival a run stopped at) not counted: nullopt when none;
  // Error when two pcs ran in that thread's last window (their order is
  // unknown).
  struct Arrival {
    Tid thread;
    uint64_t pc = 0;
    uint64_t n = 0;
  };
  // `window`, when given, is set to the index of the window it ran in;
  // `only`, when given, the pcs whose arrivals count (the others' are
  // passed over).
  Result<std::optional<Arrival>> last_arrival(std::optional<Arrival> latest_left_out, size_t* window = nullptr,
                                              const std::set<uint64_t>* only = nullptr) const;
  // How many windows (runs of one thread between two switches or flushes
  // with arrivals) so far: an int3 hit after a flush comes after them all.
  size_t windows() const { return windows_.size(); }

  // Whether a jump or relay of a stub lies in [begin, end).
  bool overlaps(uint64_t begin, uint64_t end) const;
  // The program's code back, the stubs unmapped; the counts stay.
  Status remove_all(process::Task& task);

 private:
  struct Window {
    Tid thread;
    std::map<uint64_t, uint64_t> arrivals;  // pc -> arrivals in the window
  };
  Status set_limits(process::Task& task);

  std::map<uint64_t, CountingPatch> stubs_;       // by pc
  std::map<uint64_t, uint64_t> seen_;             // stub counts already given out
  std::map<std::pair<int32_t, uint64_t>, uint64_t> totals_;  // (thread, pc) -> arrivals
  std::vector<Window> windows_;
  std::optional<Tid> running_;
  std::optional<Arrival> aim_;
};

}  // namespace slsdbg::replay
