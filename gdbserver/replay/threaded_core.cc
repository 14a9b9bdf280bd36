#include "gdbserver/replay/threaded_core.h"

#include <signal.h>
#include <sys/mman.h>

#include <cstring>

#include "engine/dump/core_writer.h"
#include "engine/dump/memory_source.h"

namespace slsdbg::gdbserver {

namespace {

class ThreadedMemory final : public dump::MemorySource {
 public:
  explicit ThreadedMemory(replay::ThreadedTimeline& t) : t_(t) {}
  Status read(uint64_t addr, std::span<uint8_t> out) override {
    while (!out.empty()) {
      const size_t n = TRY(t_.read_memory(addr, out));
      if (n == 0) return Error::msg("cannot read the replay's memory at " + std::to_string(addr));
      addr += n;
      out = out.subspan(n);
    }
    return ok_status();
  }

 private:
  replay::ThreadedTimeline& t_;
};

}  // namespace

Result<std::string> write_threaded_core(replay::ThreadedTimeline& timeline, const store::RecordingReader& reader,
                                        const std::string& path) {
  const CheckpointId k = timeline.current_segment();
  store::ProcessState state = TRY_CTX(reader.process_state(k), "checkpoint " + std::to_string(k.value));
  // The threads alive now, leader first; what the checkpoint knew of each
  // (signal mask, pending signals) kept, a thread it did not know added.
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
    threads.push_back(std::move(t));
  }
  if (threads.empty()) return Error::msg("no live thread at this position");
  state.threads = std::move(threads);
  if (auto live = timeline.live_mappings(); live.ok() && !live->empty()) state.mappings = std::move(*live);
  state.fatal_siginfo.clear();
  // Pages a mapping lost meanwhile cannot be read: such a mapping goes in
  // without contents rather than failing the whole core.
  for (store::Mapping& m : state.mappings) {
    if (!(m.prot & PROT_READ)) continue;
    uint8_t probe = 0;
    auto r = timeline.read_memory(m.start, std::span(&probe, 1));
    if (!r.ok() || *r == 0) m.prot &= ~PROT_READ;
  }
  ThreadedMemory memory(timeline);
  dump::CoreOptions options;
  options.signal = SIGTRAP;
  dump::CoreSummary summary = TRY(dump::write_core(state, memory, path, options));
  return "wrote " + path + " (" + std::to_string(summary.file_size >> 10) + " KiB, " +
         std::to_string(summary.threads) + " threads, " + std::to_string(summary.load_segments) + " mappings) at " +
         timeline.position_text() + "\n";
}

}  // namespace slsdbg::gdbserver
