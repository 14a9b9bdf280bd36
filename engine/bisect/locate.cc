#include "engine/bisect/locate.h"

#include "engine/dump/backtrace.h"
#include "engine/dump/disassembler.h"
#include "engine/dump/module_cache.h"

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

void describe_write(const store::ProcessState& state, dump::MemorySource& memory, Refined& f) {
  const uint64_t pc = state.threads[0].regs.rip;
  dump::ModuleCache modules(state, memory);
  dump::Symbolized w = modules.symbolize(pc - 1);
  f.write_function = w.function;
  f.write_file = w.file;
  f.write_line = w.line;
  auto window = dump::disassemble_around(memory, pc, w.function_start);
  if (window.ok())
    for (size_t i = 0; i + 1 < window->size(); i++)
      if ((*window)[i + 1].address == pc) f.write_pc = (*window)[i].address;
}

}  // namespace slsdbg::bisect
