#include "gdbserver/replay/stop_mapping.h"

#include <csignal>

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
    case StopCause::HistoryEnd: return {StopReason::history_end(thread), {}};
    case StopCause::Exited:
      if (stop.signo > 0) return {StopReason::killed(thread, stop.signo), {}};
      return {StopReason::exited(thread, stop.exit_status), {}};
    case StopCause::Interrupted: return {StopReason::with_signal(thread, SIGINT), {}};
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

replay::WatchKind watch_kind_for(WatchType type) {
  switch (type) {
    case WatchType::Write: return replay::WatchKind::Write;
    case WatchType::Read: return replay::WatchKind::Read;
    case WatchType::Access: return replay::WatchKind::Access;
  }
  return replay::WatchKind::Write;
}

}  // namespace slsdbg::gdbserver
