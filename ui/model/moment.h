// Everything the panes show for one checkpoint, without Qt: registers (with
// what changed since the previous checkpoint), backtrace and disassembly from
// engine/dump, the source around the current line, and the segment's events.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/dump/backtrace.h"
#include "store/recording.h"

namespace slsdbg::ui {

struct RegisterRow {
  std::string name;
  uint64_t value = 0;
  bool changed = false;  // differs from the previous checkpoint's leader thread
};

struct SourceView {
  std::string file;              // "" without debug info
  int line = 0;                  // current line, 1-based
  int first_line = 0;            // line number of lines[0]
  std::vector<std::string> lines;
};

struct Moment {
  uint64_t k = 0;
  store::ProcessState state;
  std::vector<RegisterRow> registers;             // leader thread
  std::vector<dump::ThreadBacktrace> backtraces;  // every thread, disasm around frame 0
  SourceView source;
  std::vector<store::Event> events;               // the segment after k
};

Result<Moment> load_moment(const store::RecordingReader& reader, uint64_t k);

std::vector<RegisterRow> register_rows(const user_regs_struct& now, const user_regs_struct* before);

// Bytes [addr, addr+n) at k, and which of them differ at k-1 (all false at 0).
struct MemoryView {
  uint64_t addr = 0;
  std::vector<uint8_t> bytes;
  std::vector<bool> changed;
};
Result<MemoryView> load_memory(const store::RecordingReader& reader, uint64_t k, uint64_t addr, size_t n);

}  // namespace slsdbg::ui
