#include "process/task_clock.h"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>

namespace slsdbg::process {

namespace {

perf_event_attr task_clock_attr() {
  perf_event_attr attr{};
  attr.type = PERF_TYPE_SOFTWARE;
  attr.size = sizeof attr;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  return attr;
}

}  // namespace

TaskClock TaskClock::open(pid_t tgid) {
  clockid_t id;
  if (clock_getcpuclockid(tgid, &id) != 0) return TaskClock(tgid, std::nullopt);
  return TaskClock(tgid, id);
}

Result<uint64_t> TaskClock::read() const {
  if (clock_) {
    timespec ts{};
    if (clock_gettime(*clock_, &ts) != 0) return Error::from_errno("clock_gettime(process CPU clock)");
    return uint64_t(ts.tv_sec) * 1'000'000'000ull + uint64_t(ts.tv_nsec);
  }
  std::ifstream f("/proc/" + std::to_string(tgid_) + "/schedstat");
  uint64_t ns = 0;
  if (!(f >> ns)) return Error::msg("cannot read the schedstat of process " + std::to_string(tgid_));
  return ns;
}

Result<UniqueFd> arm_cpu_time_alarm(pid_t tid, uint64_t ns) {
  perf_event_attr attr = task_clock_attr();
  attr.sample_period = ns ? ns : 1;
  attr.sigtrap = 1;
  attr.remove_on_exec = 1;  // required by sigtrap
  attr.sig_data = kCpuTimeAlarmData;
  const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd < 0) return Error::from_errno("perf_event_open(task clock alarm)");
  return UniqueFd(fd);
}

bool is_cpu_time_alarm(const siginfo_t& si) {
  constexpr int kTrapPerf = 6;           // TRAP_PERF
  constexpr size_t kPerfDataOffset = 24;  // _sigfault._perf._data, after si_addr
  if (si.si_signo != SIGTRAP || si.si_code != kTrapPerf) return false;
  uint64_t data = 0;
  std::memcpy(&data, reinterpret_cast<const char*>(&si) + kPerfDataOffset, sizeof data);
  return data == kCpuTimeAlarmData;
}

}  // namespace slsdbg::process
