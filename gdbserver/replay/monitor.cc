// `monitor ...` (qRcmd) for a replay: where we are, the checkpoints, going to
// a checkpoint / moment / bookmark, bookmarks, and a core of the moment.
#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "gdbserver/replay/bookmark_name.h"
#include "gdbserver/replay/last_write_report.h"
#include "gdbserver/replay/moment_core.h"
#include "gdbserver/replay/timeline_target.h"

namespace slsdbg::gdbserver {

namespace {

constexpr std::string_view kHelp =
    "slsdbg replay monitor commands:\n"
    "  help              this text\n"
    "  when              the current moment (K:E:0xPC:N), rr's event number, recorded time\n"
    "  checkpoints       the recording's checkpoints (* marks the current segment)\n"
    "  goto K            go to checkpoint K's start\n"
    "  goto K:E:0xPC:N   go to that moment (segment K, after event E, n-th execution of PC)\n"
    "  goto NAME         go to the moment bookmarked as NAME\n"
    "  bookmark NAME     remember the current moment as NAME (stored in the recording)\n"
    "  bookmarks         list bookmarks\n"
    "  dump PATH         write an ELF core of the current moment to PATH (mode 0600);\n"
    "                    the memory map is the one of the current segment's checkpoint\n"
    "  last-write ADDR [LEN]  the last write to LEN bytes (default 1) at ADDR before\n"
    "                    now: moment, instruction, file:line (GDB: last-write EXPR)\n"
    "  stats             segments replayed and skipped by watchpoint scans, restores, probe\n"
    "                    and watchpoint traps, the checkpoint breakpoint's debug exceptions\n"
    "After `monitor goto`, GDB still shows the old frame until it re-reads the\n"
    "registers: run `maint flush register-cache` (slsdbg replay defines `goto`,\n"
    "which does both).\n";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}


}  // namespace

Result<std::string> TimelineTarget::run_monitor_command(std::string_view command_line) {
  std::string_view line = trim(command_line);
  std::string_view verb = line.substr(0, line.find(' '));
  std::string_view rest = trim(line.substr(verb.size()));
  if (verb.empty() || verb == "help") return std::string(kHelp);
  if (verb == "when") return monitor_when();
  if (verb == "checkpoints") return monitor_checkpoints();
  if (verb == "goto") return monitor_goto(rest);
  if (verb == "bookmark") return monitor_bookmark(rest);
  if (verb == "bookmarks") return monitor_bookmarks();
  if (verb == "dump") return monitor_dump(rest);
  if (verb == "last-write") return monitor_last_write(rest);
  if (verb == "stats") return monitor_stats();
  return Error::msg("unknown monitor command '" + std::string(verb) + "' (monitor help lists them)");
}

Result<std::string> TimelineTarget::monitor_when() {
  replay::Timeline* t = TRY(live());
  if (diverged_) {
    char line[160];
    std::snprintf(line, sizeof line,
                  "Current moment: none (replay diverged in segment %" PRIu64 " at event %" PRIu64 ", pc 0x%" PRIx64
                  "; go back or goto a checkpoint)\n",
                  diverged_->segment.value, diverged_->event_index, diverged_->pc);
    return std::string(line);
  }
  replay::Moment m = TRY(t->current_moment());
  char line[160];
  std::snprintf(line, sizeof line, "Current moment: %s (checkpoint %" PRIu64 " of %" PRIu64 ", event %" PRIu64 ")\n",
                m.to_string().c_str(), m.checkpoint, t->checkpoint_count(), global_event(m.checkpoint, m.event));
  std::string out = line;
  // Recorded time: the checkpoint's; the next one's bounds it from above.
  const auto cps = reader_.checkpoints();
  for (size_t i = 0; i < cps.size(); i++) {
    if (cps[i].id.value != m.checkpoint) continue;
    std::snprintf(line, sizeof line, "Recorded time: %.3f ms into the recording", static_cast<double>(cps[i].time_ns) / 1e6);
    out += line;
    if (m.event > 0 || i + 1 < cps.size()) {
      if (i + 1 < cps.size())
        std::snprintf(line, sizeof line, " to %.3f ms (between checkpoints %" PRIu64 " and %" PRIu64 ")",
                      static_cast<double>(cps[i + 1].time_ns) / 1e6, cps[i].id.value, cps[i + 1].id.value);
      else
        std::snprintf(line, sizeof line, " or later (after the last checkpoint)");
      out += line;
    }
    out += cps[i].reason == "crash" ? ", the crash\n" : "\n";
  }
  if (diversion_) out += "In a diversion: registers and memory are a copy's; history is untouched\n";
  return out;
}

std::string TimelineTarget::monitor_checkpoints() {
  std::ostringstream out;
  uint64_t current = timeline_ ? timeline_->current_segment().value : UINT64_MAX;
  out << "  id      time_ms  reason  events\n";
  for (const store::CheckpointInfo& c : reader_.checkpoints()) {
    char line[128];
    std::snprintf(line, sizeof line, "%c %-6" PRIu64 " %8.3f  %-7s %" PRIu64 "\n", c.id.value == current ? '*' : ' ',
                  c.id.value, static_cast<double>(c.time_ns) / 1e6, c.reason.c_str(), c.segment_events);
    out << line;
  }
  return out.str();
}

Result<std::string> TimelineTarget::monitor_goto(std::string_view where) {
  replay::Timeline* t = TRY(live());
  where = trim(where);
  if (where.empty()) return Error::msg("goto needs a checkpoint, a moment or a bookmark (monitor help)");
  std::function<Result<replay::TimelineStop>()> go;
  if (all_digits(where)) {
    uint64_t k = std::stoull(std::string(where));
    if (k >= t->checkpoint_count()) {
      return Error::msg("no checkpoint " + std::string(where) + ": the recording has " +
                        std::to_string(t->checkpoint_count()));
    }
    go = [t, k] { return t->goto_checkpoint(CheckpointId(k)); };
  } else if (where.find(':') != std::string_view::npos) {
    replay::Moment m = TRY(replay::Moment::parse(where));
    go = [t, m] { return t->goto_moment(m); };
  } else {
    const std::string found = TRY(bookmarked_moment(reader_, where));
    replay::Moment m = TRY_CTX(replay::Moment::parse(found), "bookmark " + std::string(where));
    go = [t, m] { return t->goto_moment(m); };
  }
  TRY(move(nullptr, go));
  replay::Moment now = TRY(t->current_moment());
  return "now at " + now.to_string() + "\n";
}

Result<std::string> TimelineTarget::monitor_bookmark(std::string_view name) {
  replay::Timeline* t = TRY(live());
  TRY(check_bookmark_name(name));
  replay::Moment m = TRY(t->current_moment());
  TRY(reader_.set_bookmark(std::string(name), m.to_string()));
  return "bookmark " + std::string(name) + " = " + m.to_string() + "\n";
}

Result<std::string> TimelineTarget::monitor_bookmarks() {
  auto marks = TRY(reader_.bookmarks());
  if (marks.empty()) return std::string("no bookmarks\n");
  std::string out;
  for (auto& [name, moment] : marks) out += "  " + name + "  " + moment + "\n";
  return out;
}

// $_siginfo: the recorded siginfo of the signal GDB was stopped with.
Result<std::string> TimelineTarget::siginfo_bytes() {
  replay::Timeline* t = TRY(live());
  std::optional<siginfo_t> si = TRY(t->pending_siginfo());
  if (!si) return Error::msg("not stopped at a signal");
  return std::string(reinterpret_cast<const char*>(&*si), sizeof *si);
}

// The moment GDB is at does not change: the query comes back here.
Result<std::string> TimelineTarget::monitor_last_write(std::string_view args) {
  replay::Timeline* t = TRY(live());
  auto [addr, len] = TRY_CTX(parse_address_range(args), "last-write");
  LastWriteReport r = TRY(find_last_write(*t, addr, len));
  return format_text(r);
}

Result<std::string> TimelineTarget::monitor_stats() {
  replay::Timeline* t = TRY(live());
  const replay::Timeline::Stats s = t->stats();
  return "restores " + std::to_string(s.restores) + ", snapshot forks " + std::to_string(s.snapshot_forks) +
         ", snapshots " + std::to_string(s.snapshots) + "\nwatchpoint scans: segments replayed " +
         std::to_string(s.segments_replayed) + ", skipped " + std::to_string(s.segments_skipped) +
         "\nprobe traps: " + std::to_string(s.probe_traps) + "\nwatchpoint traps: " + std::to_string(s.watch_traps) +
         "\ncheckpoint breakpoint debug exceptions: " + std::to_string(s.checkpoint_debug_exceptions) + "\n";
}

Result<std::string> TimelineTarget::monitor_dump(std::string_view path) {
  replay::Timeline* t = TRY(live());
  if (path.empty()) return Error::msg("dump needs a file path");
  return write_moment_core(*t, std::string(path));
}

}  // namespace slsdbg::gdbserver
