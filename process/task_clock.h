// CPU time a thread has spent, in nanoseconds: a software perf event
// (PERF_TYPE_SOFTWARE / PERF_COUNT_SW_TASK_CLOCK, no PMU needed) on the
// thread, or /proc/PID/task/TID/schedstat's first field where perf is
// refused. The recorder logs it per checkpoint as a progress hint; replay
// bounds a patched run with it (engine/replay/README.md).
#pragma once

#include <signal.h>
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

// Raises a SIGTRAP (si_code TRAP_PERF, si_perf_data kCpuTimeAlarmData) in
// thread `tid` once it has used `ns` more CPU time; closing the fd cancels
// it, but not a SIGTRAP already queued.
inline constexpr uint64_t kCpuTimeAlarmData = 0x534c5344424c4d41ull;  // "AMLBDSLS"
Result<UniqueFd> arm_cpu_time_alarm(pid_t tid, uint64_t ns);
// Whether `si` is such an alarm's SIGTRAP (the kernel's si_perf_data sits
// where glibc's siginfo_t has no name for it).
bool is_cpu_time_alarm(const siginfo_t& si);

}  // namespace slsdbg::process
