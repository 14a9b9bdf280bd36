#include "process/proc_signals.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/fd.h"
#include "process/inject.h"

namespace slsdbg::process {

Result<PendingSignals> read_pending_signals(pid_t tgid, pid_t tid) {
  // Read at every checkpoint and tick: one read() into a stack buffer (the
  // file is ~1.5 KiB), no stream.
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/task/%d/status", static_cast<int>(tgid), static_cast<int>(tid));
  UniqueFd fd(::open(path, O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return Error::from_errno(std::string("open(") + path + ")");
  char buf[8192];
  size_t len = 0;
  for (ssize_t n; len < sizeof buf - 1 && (n = ::read(fd.get(), buf + len, sizeof buf - 1 - len)) != 0;) {
    if (n < 0) return Error::from_errno(std::string("read(") + path + ")");
    len += static_cast<size_t>(n);
  }
  buf[len] = 0;
  PendingSignals p;
  int found = 0;
  auto value = [&](const char* key, uint64_t& out) {
    const char* at = std::strstr(buf, key);
    if (!at) return;
    out = std::strtoull(at + std::strlen(key), nullptr, 16);
    ++found;
  };
  value("\nSigPnd:", p.thread_pending);
  value("\nShdPnd:", p.shared_pending);
  value("\nSigBlk:", p.blocked);
  if (found != 3) return Error::msg(std::string(path) + ": missing SigPnd/ShdPnd/SigBlk");
  value("\nSigCgt:", p.caught);
  return p;
}

Result<HandlersAndBrk> read_handlers_and_brk(Task& task) {
  auto regs = TRY(run_injected_stub(task, sigaction_dump_stub(), [](user_regs_struct&) {}));
  uint64_t raw[64 * 4];
  TRY(task.read_memory(RemoteAddr(kInjectScratchAddr), std::span<uint8_t>(reinterpret_cast<uint8_t*>(raw), sizeof raw)));
  HandlersAndBrk out;
  for (int i = 0; i < 64; ++i) {
    out.actions[i].handler = raw[4 * i + 0];
    out.actions[i].flags = raw[4 * i + 1];
    out.actions[i].restorer = raw[4 * i + 2];
    out.actions[i].mask = raw[4 * i + 3];
  }
  out.brk = regs.rax;
  return out;
}

}  // namespace slsdbg::process
