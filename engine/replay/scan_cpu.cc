#include "engine/replay/scan_cpu.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "process/cpu.h"

namespace slsdbg::replay {

bool scan_ahead_off() {
  const char* e = std::getenv("SLSDBG_REPLAY_SCAN_AHEAD");
  return e && std::string(e) == "off";
}

// The process's CPUs as it started: the calling thread is pinned with its
// tracees by now (pin_tracer_to_cpu).
int other_cpu(int pinned) {
  const cpu_set_t set = process::start_cpus();
  if (CPU_COUNT(&set) < 2) return -1;
  const int n = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  for (int i = 1; i <= n; i++) {
    const int cpu = (std::max(pinned, 0) + i) % n;
    if (cpu != pinned && CPU_ISSET(cpu, &set)) return cpu;
  }
  return -1;
}

}  // namespace slsdbg::replay
