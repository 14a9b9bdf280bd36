#include "gdbserver/replay/stop_mapping.h"

#include <csignal>
#include <cstring>

#include "common/signal_name.h"

namespace slsdbg::gdbserver {

namespace {

StopKind watch_stop_kind(replay::WatchKind kind) {
  switch (kind) {
    case replay::WatchKind::Write: return StopKind::Watch;
    case replay::WatchKind::Read: return StopKind::ReadWatch;
    case replay::WatchKind::Access: return StopKind::AccessWatch;
  }
  return StopKind::Watch;
}

}  // namespace

MappedStop map_timeline_stop(const replay::TimelineStop& stop, Tid thread) {
  using replay::StopCause;
  switch (stop.cause) {
    case StopCause::Breakpoint: return {StopReason::breakpoint(thread), {}};
    case StopCause::Watchpoint:
      return {StopReason::watch(thread, watch_stop_kind(stop.watch_kind), RemoteAddr(stop.watch_addr)), {}};
    case StopCause::Step: return {StopReason::with_signal(thread, SIGTRAP), {}};
    case StopCause::Signal: return {StopReason::with_signal(thread, stop.signo > 0 ? stop.signo : SIGTRAP), {}};
    case StopCause::HistoryBegin: return {StopReason::history_begin(thread), {}};
    case StopCause::HistoryEnd:
      // The recording stops without an exit (recorder killed or stopped):
      // shown like an exit, at the last complete checkpoint.
      return {StopReason::history_end(thread),
              "slsdbg: the recording stops here (no exit was recorded): the end of the recording "
              "(reverse execution works from here).\n"};
    case StopCause::Exited: {
      // Not W/X: those end the client's session (GDB's `target remote` drops
      // the inferior), and a user who ran past the last breakpoint could not
      // go back any more. Like rr, stop just before the exit instead, at the
      // end of history, and say how the program ended.
      std::string how = stop.signo > 0 ? "was killed by " + signal_name(stop.signo)
                                       : "exited with status " + std::to_string(stop.exit_status);
      return {StopReason::history_end(thread),
              "slsdbg: the program " + how + " here: the end of the recording (reverse execution works from here).\n"};
    }
    case StopCause::Exec: return {StopReason::exec(thread, ""), {}};  // the target names the new program
    case StopCause::Interrupted:
      // A valid moment either way; say which kind, GDB only shows SIGINT.
      if (stop.back_where_started)
        return {StopReason::with_signal(thread, SIGINT),
                "slsdbg: interrupted: you are back where this move started (it was cut before it reached "
                "the next checkpoint); navigation goes on from here.\n"};
      return {StopReason::with_signal(thread, SIGINT),
              "slsdbg: interrupted: you are where the search had reached (`monitor when` tells the moment); "
              "navigation goes on from here.\n"};
    case StopCause::Diverged: {
      // Nothing recorded lies beyond a divergence: the client sees the end of
      // history, and the user reads why.
      std::string why = stop.divergence ? stop.divergence->describe() : std::string("no details");
      return {StopReason::history_end(thread),
              "slsdbg: replay diverged from the recording here; history cannot go further forward.\n"
              "slsdbg: " + why + "\n"};
    }
  }
  return {StopReason::with_signal(thread, SIGTRAP), {}};
}

Result<std::optional<StopReason>> exit_call_entry(const StopReason& r, const replay::TimelineStop& end,
                                                  const std::function<Result<user_regs_struct>()>& regs,
                                                  bool catching, const std::set<int64_t>& caught) {
  if (!catching || r.kind != StopKind::HistoryEnd) return std::optional<StopReason>();
  if (end.cause != replay::StopCause::Exited || end.signo > 0) return std::optional<StopReason>();
  // In the call (orig_rax) or with it about to run (rax, the threaded end).
  const user_regs_struct at = TRY(regs());
  const int64_t nr = static_cast<int64_t>(static_cast<int64_t>(at.orig_rax) >= 0 ? at.orig_rax : at.rax);
  if (!caught.empty() && !caught.count(nr)) return std::optional<StopReason>();
  StopReason entry = r;
  entry.kind = StopKind::SyscallEntry;
  entry.syscall_no = nr;
  return std::optional<StopReason>(entry);
}

replay::WatchKind watch_kind_for(WatchType type) {
  switch (type) {
    case WatchType::Write: return replay::WatchKind::Write;
    case WatchType::Read: return replay::WatchKind::Read;
    case WatchType::Access: return replay::WatchKind::Access;
  }
  return replay::WatchKind::Write;
}

std::vector<std::pair<uint64_t, uint64_t>> aligned_pieces(uint64_t addr, uint64_t len) {
  std::vector<std::pair<uint64_t, uint64_t>> pieces;
  while (len > 0) {
    uint64_t size = 8;
    while (size > 1 && (addr % size != 0 || size > len)) size /= 2;
    pieces.emplace_back(addr, size);
    addr += size;
    len -= size;
  }
  return pieces;
}

}  // namespace slsdbg::gdbserver
