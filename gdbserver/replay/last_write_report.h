// "Who last wrote these bytes?" as one answer: Timeline::last_write plus
// what a user wants to see of that moment (the instruction, its disassembly,
// function and file:line through engine/dump's backtrace machinery, the
// recorded time) and how much history it replayed. Shared by `monitor
// last-write ADDR [LEN]` and `slsdbg last-write REC ADDR[:LEN]`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/result.h"
#include "engine/replay/threaded_timeline.h"
#include "engine/replay/timeline.h"

namespace slsdbg::gdbserver {

struct LastWriteReport {
  uint64_t addr = 0;
  uint64_t len = 0;
  std::optional<std::string> moment;  // nullopt: no write recorded before the query's moment
  uint64_t checkpoint = 0;            // the moment's
  std::optional<int32_t> thread;      // the writing thread (a recording with threads)
  uint64_t pc = 0;
  std::string instruction;    // "mov dword ptr [rip + 0x2ee4], 0x2a"
  std::string function;       // "main+0x20"
  std::string file;           // "" without debug info
  int line = 0;
  uint64_t time_ns = 0;       // the segment's checkpoint's recorded time
  std::optional<uint64_t> next_time_ns;  // the next checkpoint's
  uint64_t checkpoints = 0;
  uint64_t segments_replayed = 0;
  uint64_t segments_skipped = 0;
};

// Runs the query from the timeline's current moment; the timeline ends where it started.
Result<LastWriteReport> find_last_write(replay::Timeline& timeline, uint64_t addr, uint64_t len);
// The same on a recording with threads (any thread's write; the reverse
// search skips segments that did not dirty the bytes' pages).
Result<LastWriteReport> find_last_write(replay::ThreadedTimeline& timeline, const store::RecordingReader& reader,
                                        uint64_t addr, uint64_t len);
std::string format_text(const LastWriteReport& r);
std::string format_json(const LastWriteReport& r);

// "ADDR [LEN]" or "ADDR:LEN" (hex with 0x, or decimal; LEN defaults to 1).
Result<std::pair<uint64_t, uint64_t>> parse_address_range(std::string_view text);

}  // namespace slsdbg::gdbserver
