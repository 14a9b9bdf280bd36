#include "gdbserver/replay/diversion.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <vector>

#include "gdbserver/replay/diversion_syscalls.h"

namespace slsdbg::gdbserver {

Result<std::unique_ptr<Diversion>> Diversion::start(replay::Timeline& timeline) {
  process::Task copy = TRY_CTX(timeline.fork_current(), "starting a diversion (a copy of the replayed process)");
  return std::unique_ptr<Diversion>(new Diversion(std::move(copy)));
}

Diversion::~Diversion() { task_.kill_and_reap(); }

namespace {

// write(fd 1|2, buf, len) of the copy, onto slsdbg's own stdout or stderr.
int64_t pass_output(process::Task& task, const user_regs_struct& r) {
  const size_t len = std::min<uint64_t>(r.rdx, 1 << 16);  // a short write, as a pipe may do
  std::vector<uint8_t> bytes(len);
  if (!task.read_memory(RemoteAddr(r.rsi), bytes).ok()) return -EFAULT;
  const int fd = r.rdi == 1 ? STDOUT_FILENO : STDERR_FILENO;
  const ssize_t n = ::write(fd, bytes.data(), bytes.size());
  return n < 0 ? -errno : n;
}

// At a seccomp stop: runs the call, or skips it with a result
// (diversion_syscalls.h says which).
Status on_syscall(process::Task& task) {
  user_regs_struct r = TRY(task.regs());
  const int64_t nr = static_cast<int64_t>(r.orig_rax);
  int64_t result = -ENOSYS;
  switch (diverted_syscall(nr, {r.rdi, r.rsi, r.rdx, r.r10, r.r8, r.r9})) {
    case DivertedSyscall::Run: return task.cont();
    case DivertedSyscall::Output: result = pass_output(task, r); break;
    case DivertedSyscall::Fail: break;
  }
  r.orig_rax = static_cast<uint64_t>(-1);  // the kernel skips it; rax is the result
  r.rax = static_cast<uint64_t>(result);
  TRY(task.set_regs(r));
  return task.cont();
}

}  // namespace

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
        if (w->event == PTRACE_EVENT_SECCOMP) {  // the replay's filter traps every call
          TRY(on_syscall(task_));
          continue;
        }
        [[fallthrough]];
      case process::StopKind::SyscallStop:
      case process::StopKind::GroupStop:
        TRY(task_.cont());
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
