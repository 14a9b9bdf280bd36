#include "gdbserver/replay/threaded_core.h"

#include <signal.h>

#include "engine/dump/core_writer.h"
#include "engine/replay/threaded_state.h"

namespace slsdbg::gdbserver {

Result<std::string> write_threaded_core(replay::ThreadedTimeline& timeline, const store::RecordingReader& reader,
                                        const std::string& path) {
  store::ProcessState state = TRY(replay::threaded_live_state(timeline, reader, timeline.last_stop().thread));
  replay::ThreadedMemory memory(timeline);
  dump::CoreOptions options;
  options.signal = SIGTRAP;
  dump::CoreSummary summary = TRY(dump::write_core(state, memory, path, options));
  return "wrote " + path + " (" + std::to_string(summary.file_size >> 10) + " KiB, " +
         std::to_string(summary.threads) + " threads, " + std::to_string(summary.load_segments) + " mappings) at " +
         timeline.position_text() + "\n";
}

}  // namespace slsdbg::gdbserver
