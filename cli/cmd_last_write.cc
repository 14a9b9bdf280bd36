// slsdbg last-write: "who last wrote these bytes?" without GDB. Opens a
// Timeline at the end of history (or --at a checkpoint or moment) and runs
// the same query as `monitor last-write` (gdbserver/replay/last_write_report.h),
// which replays only the segments that can have written the bytes.

#include <cstdio>
#include <string>
#include <utility>

#include "cli/command.h"
#include "cli/options.h"
#include "cli/recording_dir.h"
#include "engine/bisect/exe_symbols.h"
#include "engine/replay/threaded_timeline.h"
#include "engine/replay/timeline.h"
#include "gdbserver/replay/last_write_report.h"
#include "store/recording.h"

namespace slsdbg::cli {
namespace {

const char kUsage[] =
    "usage: slsdbg last-write REC ADDR[:LEN] [--at K | --at K:E:0xPC:N] [--json]\n\n"
    "Finds the last write to LEN bytes (default 1; a symbol's size) at ADDR before\n"
    "the end of history, or before --at's moment: the moment, the instruction and\n"
    "FILE:LINE. ADDR is a number (0x... hex) or a data symbol of the program\n"
    "(lw_target, lw_target+4). Replays only the segments whose dirty pages or\n"
    "event log can hold such a write (at most 16 aligned bytes at once).\n"
    "A recording with threads: any thread's write, named with the thread;\n"
    "--at takes K or a threaded moment (K:t=TID:pc=0xPC:n=N, as GDB's monitor\n"
    "when prints it); at most 3 aligned pieces of up to 8 bytes.\n\n"
    "  --at W     start from checkpoint K's start, or from a moment\n"
    "  --json     one JSON object: found, moment, thread (with threads), pc,\n"
    "             instruction, function, file,\n"
    "             line, segments_replayed, segments_skipped\n";

// A number, or SYMBOL[+OFFSET] from the program's symbols (LEN: the symbol's size).
Result<std::pair<uint64_t, uint64_t>> resolve_target(const store::RecordingReader& reader, const std::string& text) {
  if (!text.empty() && text[0] >= '0' && text[0] <= '9') return gdbserver::parse_address_range(text);
  std::string name = text, len_text;
  if (size_t colon = name.find(':'); colon != std::string::npos) {
    len_text = name.substr(colon + 1);
    name = name.substr(0, colon);
  }
  uint64_t offset = 0;
  if (size_t plus = name.find('+'); plus != std::string::npos) {
    auto off = TRY(gdbserver::parse_address_range(name.substr(plus + 1)));
    offset = off.first;
    name = name.substr(0, plus);
  }
  store::ProcessState state = TRY(reader.process_state(CheckpointId(0)));
  bisect::ExeSymbols symbols = TRY_CTX(bisect::ExeSymbols::load(state.exe, state), "reading symbols of " + state.exe);
  std::optional<bisect::SymbolRange> sym = symbols.lookup(name);
  if (!sym) return Error::msg("'" + text + "' is neither an address nor a symbol of " + state.exe);
  uint64_t len = sym->size > offset ? sym->size - offset : 1;
  if (!len_text.empty()) len = TRY(gdbserver::parse_address_range("0 " + len_text)).second;
  return std::pair<uint64_t, uint64_t>{sym->addr + offset, len};
}

// A recording with threads: the threaded timeline, from --at (a checkpoint
// or a threaded moment, engine/replay/threaded_position.h) or the end of history.
int last_write_threads(const store::RecordingReader& reader, std::pair<uint64_t, uint64_t> range, const std::string& at,
                       bool json) {
  std::optional<replay::ThreadedPosition> where;
  if (!at.empty()) {
    auto p = replay::ThreadedPosition::parse(at);
    if (!p.ok()) return fail("last-write: --at " + at + ": " + p.error().message, 2);
    where = *p;
  }
  auto timeline = replay::ThreadedTimeline::open(reader);
  if (!timeline.ok()) return fail("last-write: " + timeline.error().message);
  replay::ThreadedTimeline& t = **timeline;
  Result<replay::ThreadedStop> there = Error::msg("");
  if (where) {
    there = t.goto_moment(*where);
  } else {  // the end of history: the last checkpoint, then forward to the exit or the end
    there = t.goto_checkpoint(CheckpointId(t.checkpoint_count() - 1));
    if (there.ok()) there = t.resume(replay::Direction::Forward, replay::Motion::Continue, t.last_stop().thread);
  }
  if (!there.ok()) return fail("last-write: " + there.error().message);
  auto report = gdbserver::find_last_write(t, reader, range.first, range.second);
  if (!report.ok()) return fail("last-write: " + report.error().message);
  std::fputs((json ? gdbserver::format_json(*report) : gdbserver::format_text(*report)).c_str(), stdout);
  return 0;
}

int run_last_write(const std::vector<std::string>& args) {
  std::string rec, target, at;
  bool json = false;
  Options opts("last-write");
  opts.recording(rec);
  CLI::Option* what = opts.app().add_option("TARGET", target)->required();
  opts.when_missing(what, "missing ADDR[:LEN] or SYMBOL");
  opts.text("--at", at, "a checkpoint or a moment");
  opts.flag("--json", json);
  if (auto done = opts.parse(args)) return *done;
  auto dir = recorder::resolve_recording(rec);
  if (!dir.ok()) return fail("last-write: " + dir.error().message);
  auto reader = store::RecordingReader::open(*dir);
  if (!reader.ok()) return fail("last-write: " + reader.error().message);
  auto range = resolve_target(**reader, target);
  if (!range.ok()) return fail("last-write: " + range.error().message, 2);
  if ((*reader)->meta().threads) return last_write_threads(**reader, *range, at, json);
  std::optional<replay::Moment> moment;
  if (!at.empty()) {
    auto m = replay::Moment::parse(at);
    if (!m.ok()) return fail("last-write: --at " + at + ": " + m.error().message, 2);
    moment = *m;
  }
  replay::TimelineOptions topts;
  topts.one_shot = true;  // the process exits after the answer
  auto timeline = replay::Timeline::open(**reader, std::move(topts));
  if (!timeline.ok()) return fail("last-write: " + timeline.error().message);
  replay::Timeline& t = **timeline;
  Result<replay::TimelineStop> there = Error::msg("");
  if (moment) {
    there = t.goto_moment(*moment);
  } else {  // the end of history: the last checkpoint, then forward to the exit or the end
    there = t.goto_checkpoint(CheckpointId(t.checkpoint_count() - 1));
    if (there.ok()) there = t.resume(replay::Direction::Forward, replay::Motion::Continue);
  }
  if (!there.ok()) return fail("last-write: " + there.error().message);
  auto report = gdbserver::find_last_write(t, range->first, range->second);
  if (!report.ok()) return fail("last-write: " + report.error().message);
  std::fputs((json ? gdbserver::format_json(*report) : gdbserver::format_text(*report)).c_str(), stdout);
  return 0;
}

Registrar reg({"last-write", "the last write to some bytes before a moment: when, which instruction, file:line",
               kUsage, run_last_write, 72});

}  // namespace
}  // namespace slsdbg::cli
