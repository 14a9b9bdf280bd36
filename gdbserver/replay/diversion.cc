#include "gdbserver/replay/diversion.h"

#include <signal.h>

#include <map>

namespace slsdbg::gdbserver {

Result<std::unique_ptr<Diversion>> Diversion::start(replay::Timeline& timeline) {
  process::Task copy = TRY_CTX(timeline.fork_current(), "starting a diversion (a copy of the replayed process)");
  return std::unique_ptr<Diversion>(new Diversion(std::move(copy)));
}

Diversion::~Diversion() { task_.kill_and_reap(); }

Result<StopReason> Diversion::resume(Tid tid, bool step, const std::set<uint64_t>& breakpoints, StopRequest& stop) {
  std::map<uint64_t, uint8_t> saved;
  const uint8_t int3 = 0xcc;
  for (uint64_t addr : breakpoints) {
    uint8_t orig = 0;
    if (!task_.read_memory(RemoteAddr(addr), std::span(&orig, 1)).ok()) continue;
    if (task_.write_memory(RemoteAddr(addr), std::span(&int3, 1)).ok()) saved[addr] = orig;
  }
  auto unpatch = [&] {
    for (auto [addr, orig] : saved) (void)task_.write_memory(RemoteAddr(addr), std::span(&orig, 1));
  };
  Status resumed = step ? task_.singlestep() : task_.cont();
  if (!resumed.ok()) {
    unpatch();
    return resumed.error();
  }
  for (;;) {
    if (stop.stop_requested()) (void)task_.interrupt();
    Result<process::WaitResult> w = task_.wait();
    if (!w.ok()) {
      unpatch();
      return w.error();
    }
    switch (w->kind) {
      case process::StopKind::Exited: return StopReason::exited(tid, w->exit_code);
      case process::StopKind::Killed: return StopReason::killed(tid, w->signo);
      case process::StopKind::PtraceEvent:
        if (w->event == PTRACE_EVENT_STOP) {
          unpatch();
          return StopReason::with_signal(tid, SIGINT);
        }
        [[fallthrough]];
      case process::StopKind::SyscallStop:
      case process::StopKind::GroupStop:
        TRY(task_.cont());  // a syscall runs for real
        continue;
      case process::StopKind::SignalDelivery: {
        unpatch();
        if (w->signo != SIGTRAP) return StopReason::with_signal(tid, w->signo);
        user_regs_struct r = TRY(task_.regs());
        if (!step && saved.count(r.rip - 1)) {
          r.rip -= 1;  // back onto the breakpoint, as GDB expects
          TRY(task_.set_regs(r));
          return StopReason::breakpoint(tid);
        }
        return StopReason::with_signal(tid, SIGTRAP);
      }
    }
  }
}

}  // namespace slsdbg::gdbserver
