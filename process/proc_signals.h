// Signal state: pending sets from /proc/PID/task/TID/status, handlers through
// an injected rt_sigaction stub (no /proc file shows handler addresses).
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>

#include "common/result.h"
#include "process/task.h"
#include "store/process_state.h"

namespace slsdbg::process {

struct PendingSignals {
  uint64_t thread_pending = 0;  // SigPnd
  uint64_t shared_pending = 0;  // ShdPnd
  uint64_t blocked = 0;         // SigBlk
  uint64_t caught = 0;          // SigCgt: a handler is installed
};

Result<PendingSignals> read_pending_signals(pid_t tgid, pid_t tid);

struct HandlersAndBrk {
  std::array<store::SignalAction, 64> actions{};
  uint64_t brk = 0;
};

// One injected stub (needs the injection page): every handler, and brk(0).
Result<HandlersAndBrk> read_handlers_and_brk(Task& task);

}  // namespace slsdbg::process
