#include "cli/stub_call_sites.h"

#include "engine/replay/sysbuf_version.h"
#include "process/syscallbuf_site.h"

namespace slsdbg::cli {

unsigned show_at_stub_call_sites(store::ProcessState& state, dump::MemorySource& memory,
                                 const store::RecordingReader& reader) {
  const Result<bool> buffered = replay::recorded_with_sysbuf(reader);
  if (!buffered.ok() || !*buffered || !replay::check_sysbuf_version(reader).ok()) return 0;
  unsigned moved = 0;
  for (store::ThreadState& t : state.threads) {
    const auto site = process::sysbuf_call_site(t.regs.rip, t.regs.rsp, [&](uint64_t a, std::span<uint8_t> out) {
      return memory.read(a, out).ok();
    });
    if (!site) continue;
    t.regs.rip = site->pc;
    t.regs.rsp = site->sp;
    moved++;
  }
  return moved;
}

}  // namespace slsdbg::cli
