// CPU time a thread has spent, in nanoseconds: a software perf event
// (PERF_TYPE_SOFTWARE / PERF_COUNT_SW_TASK_CLOCK, no PMU needed) on the
// thread, or /proc/PID/task/TID/schedstat's first field where perf is
// refused. The recorder logs it per checkpoint as a progress hint; replay
// bounds a patched run with it (engine/replay/README.md).
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "common/fd.h"
#include "common/result.h"

namespace slsdbg::process {

class TaskClock {
 public:
  static TaskClock open(pid_t tid);
  // The thread's CPU time so far (exact while it is stopped).
  Result<uint64_t> read() const;

 private:
  TaskClock(pid_t tid, UniqueFd fd) : tid_(tid), fd_(std::move(fd)) {}
  pid_t tid_;
  UniqueFd fd_;  // invalid: schedstat
};

// Raises a SIGTRAP (si_code TRAP_PERF) in thread `tid` once it has used
// `ns` more CPU time; closing the object cancels it.
Result<UniqueFd> arm_cpu_time_alarm(pid_t tid, uint64_t ns);

}  // namespace slsdbg::process
