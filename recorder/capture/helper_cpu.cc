#include "recorder/capture/helper_cpu.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

namespace slsdbg::recorder {

void move_off_current_cpu(std::thread& t) {
  cpu_set_t set;
  CPU_ZERO(&set);
  const int here = sched_getcpu();
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  for (long c = 0; c < n && c < CPU_SETSIZE; ++c)
    if (c != here) CPU_SET(c, &set);
  if (CPU_COUNT(&set) == 0) return;
  (void)pthread_setaffinity_np(t.native_handle(), sizeof set, &set);
}

}  // namespace slsdbg::recorder
