// How a Timeline stop (engine/replay/timeline.h) is told to a debugger: the
// protocol's StopReason, plus a note for the user when the stop needs words
// (a divergence: replay cannot go on, and saying only "end of history" would
// hide why; the program's exit, reported as the end of history so the
// session stays alive for reverse execution).
#pragma once

#include <sys/user.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/ids.h"
#include "engine/replay/timeline.h"
#include "gdbserver/protocol/stop_reason.h"
#include "gdbserver/protocol/target.h"

namespace slsdbg::gdbserver {

struct MappedStop {
  StopReason reason;
  std::string note;  // console text for the user; empty when the stop speaks for itself
};

// `thread` is the recorded thread (every stop but Exited names it).
MappedStop map_timeline_stop(const replay::TimelineStop& stop, Tid thread);

// The end of history after an exit stands where the exit call (exit_group,
// or the last thread's exit) is about to run: its entry, with no return to
// follow. When the client catches that call (`catching`, `caught` empty for
// every call), the end `r` is shown as the call's entry first: the stop to
// show, or none. `end` is the timeline's stop there, `regs` the exiting
// thread's registers.
Result<std::optional<StopReason>> exit_call_entry(const StopReason& r, const replay::TimelineStop& end,
                                                  const std::function<Result<user_regs_struct>()>& regs,
                                                  bool catching, const std::set<int64_t>& caught);

replay::WatchKind watch_kind_for(WatchType type);

// Debug registers watch 1, 2, 4 or 8 bytes aligned to their size; a longer or
// unaligned range becomes several pieces (address, length).
std::vector<std::pair<uint64_t, uint64_t>> aligned_pieces(uint64_t addr, uint64_t len);

}  // namespace slsdbg::gdbserver
