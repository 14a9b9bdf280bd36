#include "engine/bisect/locate.h"

#include "engine/dump/backtrace.h"

namespace slsdbg::bisect {

Location locate(const store::ProcessState& state, dump::MemorySource& memory) {
  Location loc;
  if (state.threads.empty()) return loc;
  loc.pc = state.threads[0].regs.rip;
  auto threads = dump::backtrace_threads(state, memory, dump::Disasm::No);
  if (threads.empty()) return loc;
  loc.backtrace = threads[0].frames;
  loc.backtrace_error = threads[0].error;
  if (!loc.backtrace.empty()) {
    const auto& where = loc.backtrace[0].where;
    loc.function = where.function;
    loc.file = where.file;
    loc.line = where.line;
  }
  return loc;
}

}  // namespace slsdbg::bisect
