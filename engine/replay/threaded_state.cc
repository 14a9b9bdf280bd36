#include "engine/replay/threaded_state.h"

#include <sys/mman.h>

#include <cstring>

#include "engine/replay/unreadable_mappings.h"

namespace slsdbg::replay {

Status ThreadedMemory::read(uint64_t addr, std::span<uint8_t> out) {
  while (!out.empty()) {
    const size_t n = TRY(t_.read_memory(addr, out));
    if (n == 0) return Error::msg("cannot read the replay's memory at " + std::to_string(addr));
    addr += n;
    out = out.subspan(n);
  }
  return ok_status();
}

Result<store::ProcessState> threaded_live_state(ThreadedTimeline& timeline, const store::RecordingReader& reader,
                                                std::optional<Tid> first) {
  const CheckpointId k = timeline.current_segment();
  store::ProcessState state = TRY_CTX(reader.process_state(k), "checkpoint " + std::to_string(k.value));
  // What the checkpoint knew of each thread (signal mask, pending signals)
  // is kept; a thread it did not know is added.
  std::vector<store::ThreadState> threads;
  for (Tid tid : timeline.threads()) {
    store::ThreadState t;
    t.tid = tid;
    for (const store::ThreadState& known : state.threads)
      if (known.tid == tid) t = known;
    t.restarted_syscall = false;
    t.regs = TRY(timeline.regs(tid));
    t.xsave = TRY(timeline.xsave(tid));
    if (t.xsave.size() >= sizeof t.fpregs) std::memcpy(&t.fpregs, t.xsave.data(), sizeof t.fpregs);
    if (first && tid == *first) threads.insert(threads.begin(), std::move(t));
    else threads.push_back(std::move(t));
  }
  if (threads.empty()) return Error::msg("no live thread at this position");
  state.threads = std::move(threads);
  if (auto live = timeline.live_mappings(); live.ok() && !live->empty()) state.mappings = std::move(*live);
  state.fatal_siginfo.clear();
  mark_unreadable_mappings(state.mappings, timeline);
  return state;
}

}  // namespace slsdbg::replay
