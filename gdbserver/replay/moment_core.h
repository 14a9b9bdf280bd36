// `monitor dump PATH`: an ELF core of the current moment of a replay, written
// by engine/dump from the moment's registers and memory (read through the
// timeline, so mid-segment changes are in it) and the memory map, fds and
// signal state of the current segment's checkpoint.
#pragma once

#include <string>

#include "common/result.h"
#include "engine/dump/memory_source.h"
#include "engine/replay/timeline.h"
#include "store/process_state.h"

namespace slsdbg::gdbserver {

// The live replay's memory as a MemorySource: all of a range or an error.
class TimelineMemory final : public dump::MemorySource {
 public:
  explicit TimelineMemory(replay::Timeline& t) : t_(t) {}
  Status read(uint64_t addr, std::span<uint8_t> out) override;

 private:
  replay::Timeline& t_;
};

// The process state of the current moment: the segment's checkpoint with the
// live registers, XSAVE area and memory map (also what `monitor last-write`
// unwinds from).
Result<store::ProcessState> moment_state(replay::Timeline& timeline);

// Returns the one-line summary to print.
Result<std::string> write_moment_core(replay::Timeline& timeline, const std::string& path);

}  // namespace slsdbg::gdbserver
