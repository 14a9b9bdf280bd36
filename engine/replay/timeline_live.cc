// What the live replayed process says about the current moment that the
// checkpoint it started from does not: its memory map now (libraries mapped
// during the segment included) and the siginfo of a recorded signal about to
// be delivered. For cores of a moment and GDB's $_siginfo.
#include <cstring>

#include "engine/replay/timeline.h"
#include "engine/replay/timeline_impl.h"
#include "engine/replay/tracee_fork.h"
#include "process/inject.h"
#include "process/proc_maps.h"

namespace slsdbg::replay {

Result<std::vector<store::Mapping>> Timeline::live_mappings() {
  if (!impl_->session) return Error::msg("no replayed process");
  std::vector<store::Mapping> maps = TRY(process::read_maps(impl_->session->task().tgid()));
  std::erase_if(maps, [](const store::Mapping& m) {  // replay's own code and scratch pages
    return m.start >= process::kInjectPageAddr && m.end <= process::kInjectPageAddr + process::kInjectAreaSize;
  });
  return maps;
}

Result<std::optional<siginfo_t>> Timeline::pending_siginfo() {
  if (impl_->last.cause != StopCause::Signal) return std::optional<siginfo_t>{};
  const Moment m = TRY(current_moment());
  const store::Event ev = TRY(recording().segment_event(SegmentId(m.checkpoint), m.event));
  if (ev.kind != store::EventKind::Signal || ev.siginfo.size() != sizeof(siginfo_t))
    return std::optional<siginfo_t>{};
  siginfo_t si;
  std::memcpy(&si, ev.siginfo.data(), sizeof si);
  return std::optional<siginfo_t>{si};
}

Result<process::Task> Timeline::fork_current() {
  if (!impl_->session) return Error::msg("no replayed process");
  process::Task& task = impl_->session->task();
  const user_regs_struct r = TRY(regs());
  const uint64_t mask = TRY(task.signal_mask());
  return fork_tracee(task, r, mask);
}

}  // namespace slsdbg::replay
