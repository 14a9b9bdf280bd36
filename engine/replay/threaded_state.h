// The process state at a threaded timeline's position (threaded_timeline.h),
// for cores and invariants: the current segment's checkpoint with the
// threads alive now (registers and XSAVE area now) and the memory map now;
// the memory itself is read through the replay (ThreadedMemory).
#pragma once

#include <optional>

#include "common/ids.h"
#include "common/result.h"
#include "engine/dump/memory_source.h"
#include "engine/replay/threaded_timeline.h"
#include "store/process_state.h"
#include "store/recording.h"

namespace slsdbg::replay {

// `first`: the thread to list first (a core's current thread), else the leader.
Result<store::ProcessState> threaded_live_state(ThreadedTimeline& timeline, const store::RecordingReader& reader,
                                                std::optional<Tid> first = std::nullopt);

// The replay's memory now (breakpoint bytes read as the original): all of a
// range or an error.
class ThreadedMemory final : public dump::MemorySource {
 public:
  explicit ThreadedMemory(ThreadedTimeline& t) : t_(t) {}
  Status read(uint64_t addr, std::span<uint8_t> out) override;

 private:
  ThreadedTimeline& t_;
};

}  // namespace slsdbg::replay
