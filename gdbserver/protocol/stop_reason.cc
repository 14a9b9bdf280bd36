#include "gdbserver/protocol/stop_reason.h"

#include <cstdio>

#include "gdbserver/protocol/hex.h"
#include "gdbserver/protocol/signals.h"

namespace slsdbg::gdbserver {
namespace {

std::string two_hex(int v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02x", v & 0xff);
  return buf;
}

// A new process's first thread: under multiprocess "pPID.TID" with its own
// pid (the tid), not the parent's.
std::string process_thread_id(const ClientFeatures& client, Tid child) {
  const std::string t = hex_number(static_cast<uint64_t>(child.value));
  return client.pid > 0 ? "p" + t + "." + t : t;
}

}  // namespace

std::string thread_id_text(const ClientFeatures& client, Tid tid) {
  const std::string t = hex_number(static_cast<uint64_t>(tid.value));
  return client.pid > 0 ? "p" + hex_number(static_cast<uint64_t>(client.pid)) + "." + t : t;
}

std::string encode_stop_reply(const StopReason& stop, const ClientFeatures& client) {
  const std::string process =
      client.pid > 0 ? ";process:" + hex_number(static_cast<uint64_t>(client.pid)) : std::string();
  switch (stop.kind) {
    case StopKind::Exited:
      return "W" + two_hex(stop.exit_status) + process;
    case StopKind::Killed:
      return "X" + two_hex(gdb_signal_from_host(stop.signal)) + process;
    default:
      break;
  }
  std::string out = "T" + two_hex(gdb_signal_from_host(stop.signal));
  if (stop.thread.value > 0) out += "thread:" + thread_id_text(client, stop.thread) + ";";
  switch (stop.kind) {
    case StopKind::SwBreakpoint:
      if (client.swbreak) out += "swbreak:;";
      break;
    case StopKind::HwBreakpoint:
      if (client.hwbreak) out += "hwbreak:;";
      break;
    case StopKind::Watch:
      out += "watch:" + hex_number(stop.data_addr.value) + ";";
      break;
    case StopKind::ReadWatch:
      out += "rwatch:" + hex_number(stop.data_addr.value) + ";";
      break;
    case StopKind::AccessWatch:
      out += "awatch:" + hex_number(stop.data_addr.value) + ";";
      break;
    case StopKind::HistoryBegin:
      out += "replaylog:begin;";
      break;
    case StopKind::HistoryEnd:
      out += "replaylog:end;";
      break;
    case StopKind::SyscallEntry:
      out += "syscall_entry:" + hex_number(static_cast<uint64_t>(stop.syscall_no)) + ";";
      break;
    case StopKind::SyscallReturn:
      out += "syscall_return:" + hex_number(static_cast<uint64_t>(stop.syscall_no)) + ";";
      break;
    case StopKind::Exec:
      if (client.exec_events) out += "exec:" + to_hex(std::string_view(stop.exec_path)) + ";";
      break;
    case StopKind::Fork:
      out += "fork:" + process_thread_id(client, stop.child) + ";";
      break;
    case StopKind::VFork:
      out += "vfork:" + process_thread_id(client, stop.child) + ";";
      break;
    case StopKind::VForkDone:
      out += "vforkdone:;";
      break;
    default:
      break;
  }
  return out;
}

}  // namespace slsdbg::gdbserver
