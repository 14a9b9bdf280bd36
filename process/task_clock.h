// CPU time a process has spent (all its threads), in nanoseconds: the
// kernel's CPU clock of the process (clock_getcpuclockid), or
// /proc/PID/schedstat's first field (the leading thread's) where that is
// refused. The recorder logs it per checkpoint as a progress hint; replay
// bounds a patched run with it (engine/replay/README.md). Not a perf
// task-clock event: the first per-task perf event on an idle system waits
// for an RCU grace period (~12 ms in these VMs, docs/performance.md), which
// every recording paid at its start.
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <time.h>

#include <cstdint>
#include <optional>

#include "common/fd.h"
#include "common/result.h"

namespace slsdbg::process {

class TaskClock {
 public:
  static TaskClock open(pid_t tgid);
  // The process's CPU time so far (exact while it is stopped).
  Result<uint64_t> read() const;

 private:
  TaskClock(pid_t tgid, std::optional<clockid_t> clock) : tgid_(tgid), clock_(clock) {}
  pid_t tgid_;
  std::optional<clockid_t> clock_;  // none: schedstat
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
