#include "gdbserver/replay/moment_core.h"

#include <sys/mman.h>

#include <cstring>

#include "engine/dump/core_writer.h"
#include "engine/dump/memory_source.h"
#include "engine/replay/unreadable_mappings.h"

namespace slsdbg::gdbserver {

Status TimelineMemory::read(uint64_t addr, std::span<uint8_t> out) {
  while (!out.empty()) {
    size_t n = TRY(t_.read_memory(addr, out));
    if (n == 0) return Error::msg("cannot read the replay's memory at " + std::to_string(addr));
    addr += n;
    out = out.subspan(n);
  }
  return ok_status();
}

Result<store::ProcessState> moment_state(replay::Timeline& timeline) {
  CheckpointId k = timeline.current_segment();
  store::ProcessState state = TRY_CTX(timeline.recording().process_state(k), "checkpoint " + std::to_string(k.value));
  if (state.threads.empty()) return Error::msg("checkpoint " + std::to_string(k.value) + " has no thread");
  store::ThreadState& thread = state.threads[0];
  thread.regs = TRY(timeline.regs());
  thread.xsave = TRY(timeline.xsave());
  if (thread.xsave.size() >= sizeof thread.fpregs) std::memcpy(&thread.fpregs, thread.xsave.data(), sizeof thread.fpregs);
  // The map of this moment: libraries mapped during the segment included.
  if (auto live = timeline.live_mappings(); live.ok() && !live->empty()) state.mappings = std::move(*live);
  return state;
}

Result<std::string> write_moment_core(replay::Timeline& timeline, const std::string& path) {
  store::ProcessState state = TRY(moment_state(timeline));
  // At a recorded signal the core reports it (and its siginfo), as the
  // kernel's core of that moment would; elsewhere a SIGTRAP stop.
  if (auto si = timeline.pending_siginfo(); si.ok() && *si) {
    const siginfo_t& info = **si;
    state.fatal_siginfo.assign(reinterpret_cast<const uint8_t*>(&info),
                               reinterpret_cast<const uint8_t*>(&info) + sizeof info);
  } else {
    state.fatal_siginfo.clear();
  }
  replay::mark_unreadable_mappings(state.mappings, timeline);
  TimelineMemory memory(timeline);
  dump::CoreOptions options;
  options.signal = SIGTRAP;
  dump::CoreSummary summary = TRY(dump::write_core(state, memory, path, options));
  replay::Moment m = TRY(timeline.current_moment());
  return "wrote " + path + " (" + std::to_string(summary.file_size >> 10) + " KiB, " +
         std::to_string(summary.load_segments) + " mappings) at moment " + m.to_string() + "\n";
}

}  // namespace slsdbg::gdbserver
