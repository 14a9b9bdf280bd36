// Why a target stopped, in the target's terms (Linux signal numbers), and
// its encoding as a stop reply packet (T/W/X).
#pragma once

#include <csignal>
#include <cstdint>
#include <string>

#include "common/ids.h"

namespace slsdbg::gdbserver {

enum class StopKind {
  Signal,        // stopped with `signal` (SIGTRAP after a step, SIGINT after an interrupt)
  SwBreakpoint,  // a software breakpoint; pc is at the breakpoint address
  HwBreakpoint,
  Watch,         // write watchpoint hit at `data_addr`
  ReadWatch,
  AccessWatch,
  HistoryBegin,  // reverse execution reached the start of the recording
  HistoryEnd,    // forward execution reached the end of the recording
  Exited,        // process exited with `exit_status`
  Killed,        // process died of `signal`
  SyscallEntry,  // a caught syscall (QCatchSyscalls) about to run: `syscall_no`
  SyscallReturn, // ... and just returned
  Exec,          // the process called execve: now runs `exec_path` (SIGTRAP)
  Fork,          // a fork-family call returned in the parent, creating process `child`
  VFork,         // ... a vfork-style one (the child shares the parent's memory until it execs)
  VForkDone,     // the vfork child released the parent's memory (exec or exit)
};

struct StopReason {
  StopKind kind = StopKind::Signal;
  Tid thread{};
  int signal = SIGTRAP;
  RemoteAddr data_addr{};
  int exit_status = 0;
  int64_t syscall_no = -1;  // SyscallEntry / SyscallReturn
  std::string exec_path;    // Exec
  Tid child{};              // Fork / VFork: the new process (its pid, also its first thread)

  static StopReason with_signal(Tid t, int sig) { return {StopKind::Signal, t, sig, {}, 0}; }
  static StopReason breakpoint(Tid t, StopKind k = StopKind::SwBreakpoint) { return {k, t, SIGTRAP, {}, 0}; }
  static StopReason watch(Tid t, StopKind k, RemoteAddr a) { return {k, t, SIGTRAP, a, 0}; }
  static StopReason history_begin(Tid t) { return {StopKind::HistoryBegin, t, SIGTRAP, {}, 0}; }
  static StopReason history_end(Tid t) { return {StopKind::HistoryEnd, t, SIGTRAP, {}, 0}; }
  static StopReason exited(Tid t, int status) { return {StopKind::Exited, t, 0, {}, status}; }
  static StopReason killed(Tid t, int sig) { return {StopKind::Killed, t, sig, {}, 0}; }
  static StopReason exec(Tid t, std::string path) { return {StopKind::Exec, t, SIGTRAP, {}, 0, -1, std::move(path)}; }
  static StopReason fork(Tid t, StopKind k, Tid child) { return {k, t, SIGTRAP, {}, 0, -1, {}, child}; }
};

// What the client said it understands in qSupported; a stop reason it did not
// announce (swbreak/hwbreak) is left out and the stop is a plain SIGTRAP.
struct ClientFeatures {
  bool swbreak = false;
  bool hwbreak = false;
  bool exec_events = false;  // "exec-events+": an Exec stop says "exec:PATH;", else it is a plain SIGTRAP
  bool fork_events = false;   // "fork-events+" / "vfork-events+": the client follows forks (the
  bool vfork_events = false;  // target reports them only when told so: ForkEvents)
  // Negotiated multiprocess: thread ids are "pPID.TID" and exits carry
  // ";process:PID". 0: plain thread ids.
  int32_t pid = 0;
};

// "1f", or "p1f.1f" under multiprocess.
std::string thread_id_text(const ClientFeatures& client, Tid tid);

// "T05thread:1f;swbreak:;", "T05thread:1f;watch:601040;",
// "T05thread:1f;replaylog:begin;", "T05thread:1f;exec:2f62696e2f6c73;",
// "T05thread:p1f.1f;fork:p20.20;", "T05thread:p1f.1f;vforkdone:;", "W00", "X09".
std::string encode_stop_reply(const StopReason& stop, const ClientFeatures& client);

}  // namespace slsdbg::gdbserver
