#include "gdbserver/replay/last_write_report.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include "engine/dump/backtrace.h"
#include "engine/replay/threaded_state.h"
#include "gdbserver/replay/moment_core.h"

namespace slsdbg::gdbserver {

namespace {

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

Result<uint64_t> parse_number(std::string_view s, const char* what) {
  std::string text(s);
  if (text.empty()) return Error::msg(std::string("missing ") + what);
  char* end = nullptr;
  errno = 0;
  const uint64_t v = std::strtoull(text.c_str(), &end, 0);
  if (*end || errno || text[0] == '-')
    return Error::msg(std::string(what) + " '" + text + "' is not a number (hex with 0x, or decimal)");
  return v;
}

// The writing moment as the user sees it: instruction, function, file:line
// of the state's first thread.
Status describe(store::ProcessState state, dump::MemorySource& memory, LastWriteReport& r) {
  state.threads.resize(1);
  // Frame 0 only: unwinding on into libc read its separate debug info
  // (a quarter of a last-write query's time).
  dump::UnwindOptions frame0;
  frame0.max_frames = 1;
  auto threads = dump::backtrace_threads(state, memory, dump::Disasm::Yes, "", frame0);
  if (threads.empty()) return ok_status();
  const dump::ThreadBacktrace& bt = threads[0];
  for (const dump::Instruction& i : bt.disasm)
    if (i.at_pc) r.instruction = i.text;
  if (!bt.frames.empty()) {
    const dump::Symbolized& w = bt.frames[0].where;
    if (!w.function.empty()) r.function = w.function + (w.offset ? "+" + hex(w.offset) : "");
    r.file = w.file;
    r.line = w.line;
  }
  return ok_status();
}

void set_times(const store::RecordingReader& reader, LastWriteReport& r) {
  const auto cps = reader.checkpoints();
  for (size_t i = 0; i < cps.size(); i++) {
    if (cps[i].id.value != r.checkpoint) continue;
    r.time_ns = cps[i].time_ns;
    if (i + 1 < cps.size()) r.next_time_ns = cps[i + 1].time_ns;
  }
}

}  // namespace

Result<std::pair<uint64_t, uint64_t>> parse_address_range(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.remove_suffix(1);
  if (text.empty()) return Error::msg("needs an address: ADDR [LEN]");
  size_t cut = text.find_first_of(" :");
  const uint64_t addr = TRY(parse_number(text.substr(0, cut), "address"));
  uint64_t len = 1;
  if (cut != std::string_view::npos) {
    std::string_view rest = text.substr(cut + 1);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    len = TRY(parse_number(rest, "length"));
    if (len == 0) return Error::msg("length must be at least 1");
  }
  return std::pair<uint64_t, uint64_t>{addr, len};
}

Result<LastWriteReport> find_last_write(replay::Timeline& t, uint64_t addr, uint64_t len) {
  LastWriteReport r;
  r.addr = addr;
  r.len = len;
  r.checkpoints = t.checkpoint_count();
  const replay::Timeline::Stats before = t.stats();
  auto found = TRY(t.last_write(addr, len, [&](const replay::Timeline::LastWrite&) -> Status {
    TimelineMemory memory(t);
    return describe(TRY(moment_state(t)), memory, r);
  }));
  const replay::Timeline::Stats after = t.stats();
  r.segments_replayed = after.segments_replayed - before.segments_replayed;
  r.segments_skipped = after.segments_skipped - before.segments_skipped;
  if (!found) return r;
  r.moment = found->moment.to_string();
  r.checkpoint = found->moment.checkpoint;
  r.pc = found->pc;
  set_times(t.recording(), r);
  return r;
}

Result<LastWriteReport> find_last_write(replay::ThreadedTimeline& t, const store::RecordingReader& reader,
                                        uint64_t addr, uint64_t len) {
  LastWriteReport r;
  r.addr = addr;
  r.len = len;
  r.checkpoints = t.checkpoint_count();
  const uint64_t runs = t.segment_runs(), skipped = t.segments_skipped();
  auto found = TRY(t.last_write(addr, len, [&](const replay::ThreadedLastWrite& w) -> Status {
    replay::ThreadedMemory memory(t);
    return describe(TRY(replay::threaded_live_state(t, reader, w.thread)), memory, r);
  }));
  r.segments_skipped = t.segments_skipped() - skipped;
  // Each search of a segment is one replay; going back to where it was is one more.
  r.segments_replayed = t.segment_runs() - runs;
  if (!found) return r;
  r.moment = found->moment;
  r.checkpoint = found->checkpoint;
  r.thread = found->thread.value;
  r.pc = found->pc;
  set_times(reader, r);
  return r;
}

std::string format_text(const LastWriteReport& r) {
  char line[256];
  std::string out;
  const std::string what = hex(r.addr) + " (" + std::to_string(r.len) + (r.len == 1 ? " byte)" : " bytes)");
  if (!r.moment) {
    out = "No write to " + what +
          " before this moment: never written since the recording began (value from checkpoint 0)\n";
  } else {
    out = "Last write to " + what + ": moment " + *r.moment +
          (r.thread ? " by thread " + std::to_string(*r.thread) : std::string()) + "\n";
    if (r.next_time_ns)
      std::snprintf(line, sizeof line, "  checkpoint %" PRIu64 " of %" PRIu64 ", recorded between %.3f and %.3f ms\n",
                    r.checkpoint, r.checkpoints, static_cast<double>(r.time_ns) / 1e6,
                    static_cast<double>(*r.next_time_ns) / 1e6);
    else
      std::snprintf(line, sizeof line, "  checkpoint %" PRIu64 " of %" PRIu64 ", recorded at %.3f ms or later\n",
                    r.checkpoint, r.checkpoints, static_cast<double>(r.time_ns) / 1e6);
    out += line;
    out += "  by " + hex(r.pc) + ": " + (r.instruction.empty() ? std::string("(no disassembly)") : r.instruction);
    if (!r.function.empty()) out += " in " + r.function;
    if (!r.file.empty()) out += " at " + r.file + ":" + std::to_string(r.line);
    out += "\n";
  }
  std::snprintf(line, sizeof line, "Segments replayed: %" PRIu64 ", skipped: %" PRIu64 " (no write to those bytes)\n",
                r.segments_replayed, r.segments_skipped);
  return out + line;
}

std::string format_json(const LastWriteReport& r) {
  std::string out = "{\"addr\":" + std::to_string(r.addr) + ",\"len\":" + std::to_string(r.len) +
                    ",\"found\":" + (r.moment ? "true" : "false");
  if (r.moment) {
    if (r.thread) out += ",\"thread\":" + std::to_string(*r.thread);
    out += ",\"moment\":" + json_string(*r.moment) + ",\"checkpoint\":" + std::to_string(r.checkpoint) +
           ",\"time_ns\":" + std::to_string(r.time_ns) + ",\"pc\":" + std::to_string(r.pc) +
           ",\"instruction\":" + json_string(r.instruction) + ",\"function\":" + json_string(r.function) +
           ",\"file\":" + json_string(r.file) + ",\"line\":" + std::to_string(r.line);
  }
  out += ",\"checkpoints\":" + std::to_string(r.checkpoints) + ",\"segments_replayed\":" +
         std::to_string(r.segments_replayed) + ",\"segments_skipped\":" + std::to_string(r.segments_skipped) + "}\n";
  return out;
}

}  // namespace slsdbg::gdbserver
