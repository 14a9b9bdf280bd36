// `monitor dump PATH` in a recording with threads: an ELF core of the
// current position with one NT_PRSTATUS per live thread (its registers and
// XSAVE area now), the memory read through the replay (breakpoint bytes
// hidden), the memory map now, and the rest (fds, signal state) from the
// current segment's checkpoint.
#pragma once

#include <string>

#include "common/result.h"
#include "engine/replay/threaded_timeline.h"
#include "store/recording.h"

namespace slsdbg::gdbserver {

// Returns the one-line summary to print.
Result<std::string> write_threaded_core(replay::ThreadedTimeline& timeline, const store::RecordingReader& reader,
                                        const std::string& path);

}  // namespace slsdbg::gdbserver
