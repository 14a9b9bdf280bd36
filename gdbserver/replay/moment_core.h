// `monitor dump PATH`: an ELF core of the current moment of a replay, written
// by engine/dump from the moment's registers and memory (read through the
// timeline, so mid-segment changes are in it) and the memory map, fds and
// signal state of the current segment's checkpoint.
#pragma once

#include <string>

#include "common/result.h"
#include "engine/replay/timeline.h"

namespace slsdbg::gdbserver {

// Returns the one-line summary to print.
Result<std::string> write_moment_core(replay::Timeline& timeline, const std::string& path);

}  // namespace slsdbg::gdbserver
