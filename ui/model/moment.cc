#include "ui/model/moment.h"

#include <fstream>

#include "engine/dump/recording_memory.h"

namespace slsdbg::ui {

std::vector<RegisterRow> register_rows(const user_regs_struct& r, const user_regs_struct* b) {
  std::vector<RegisterRow> rows;
  auto add = [&](const char* name, unsigned long long user_regs_struct::*field) {
    rows.push_back({name, r.*field, b && b->*field != r.*field});
  };
  add("rip", &user_regs_struct::rip);
  add("rsp", &user_regs_struct::rsp);
  add("rbp", &user_regs_struct::rbp);
  add("rax", &user_regs_struct::rax);
  add("rbx", &user_regs_struct::rbx);
  add("rcx", &user_regs_struct::rcx);
  add("rdx", &user_regs_struct::rdx);
  add("rsi", &user_regs_struct::rsi);
  add("rdi", &user_regs_struct::rdi);
  add("r8", &user_regs_struct::r8);
  add("r9", &user_regs_struct::r9);
  add("r10", &user_regs_struct::r10);
  add("r11", &user_regs_struct::r11);
  add("r12", &user_regs_struct::r12);
  add("r13", &user_regs_struct::r13);
  add("r14", &user_regs_struct::r14);
  add("r15", &user_regs_struct::r15);
  add("eflags", &user_regs_struct::eflags);
  add("orig_rax", &user_regs_struct::orig_rax);
  add("fs_base", &user_regs_struct::fs_base);
  add("gs_base", &user_regs_struct::gs_base);
  return rows;
}

static SourceView read_source(const std::string& file, int line) {
  SourceView v;
  v.file = file;
  v.line = line;
  if (file.empty() || line <= 0) return v;
  std::ifstream in(file);
  std::string text;
  int n = 0;
  v.first_line = std::max(1, line - 12);
  while (std::getline(in, text)) {
    ++n;
    if (n >= v.first_line && n <= line + 12) v.lines.push_back(text);
    if (n > line + 12) break;
  }
  return v;
}

Result<Moment> load_moment(const store::RecordingReader& reader, uint64_t k) {
  Moment m;
  m.k = k;
  m.state = TRY_CTX(reader.process_state(CheckpointId(k)), "checkpoint " + std::to_string(k));
  if (m.state.threads.empty()) return Error::msg("checkpoint " + std::to_string(k) + " has no thread");
  std::optional<store::ProcessState> prev;
  if (k > 0) {
    auto p = reader.process_state(CheckpointId(k - 1));
    if (p.ok()) prev = std::move(*p);
  }
  m.registers = register_rows(m.state.threads[0].regs,
                              prev && !prev->threads.empty() ? &prev->threads[0].regs : nullptr);
  // The stack page at rsp: a damaged page store is an error here, not a
  // backtrace that silently stops (the unwinder keeps going on bad reads).
  std::vector<uint8_t> stack(64);
  TRY_CTX(reader.read_memory(CheckpointId(k), m.state.threads[0].regs.rsp & ~uint64_t(63), stack),
          "checkpoint " + std::to_string(k) + ": stack");
  dump::RecordingMemory memory(reader, CheckpointId(k));
  m.backtraces = dump::backtrace_threads(m.state, memory, dump::Disasm::Yes);
  // The innermost frame with a source line is the one to show.
  for (const auto& f : m.backtraces.empty() ? std::vector<dump::Frame>{} : m.backtraces[0].frames) {
    if (!f.where.file.empty() && f.where.line > 0) {
      m.source = read_source(f.where.file, f.where.line);
      break;
    }
  }
  auto events = reader.segment_events(SegmentId(k));
  if (events.ok()) m.events = std::move(*events);
  return m;
}

Result<MemoryView> load_memory(const store::RecordingReader& reader, uint64_t k, uint64_t addr, size_t n) {
  MemoryView v;
  v.addr = addr;
  v.bytes.resize(n);
  v.changed.assign(n, false);
  TRY(reader.read_memory(CheckpointId(k), addr, v.bytes));
  if (k > 0) {
    std::vector<uint8_t> before(n);
    TRY(reader.read_memory(CheckpointId(k - 1), addr, before));
    for (size_t i = 0; i < n; ++i) v.changed[i] = before[i] != v.bytes[i];
  }
  return v;
}

}  // namespace slsdbg::ui
