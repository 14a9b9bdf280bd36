// Time: clocks, sleeps, timers. The vDSO's entry points are patched into
// these real syscalls, so every clock read is a logged input.
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>

#include "process/syscalls/model.h"

namespace slsdbg::process {

namespace {

SyscallClass gettimeofday_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (succeeded(c)) {
    add_region(out, c.args[0], sizeof(struct timeval));
    add_region(out, c.args[1], sizeof(struct timezone));
  }
  return SyscallClass::Modelled;
}

SyscallClass time_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  add_region(out, c.args[0], sizeof(time_t));
  return SyscallClass::Modelled;
}

// nanosleep(req, rem) / clock_nanosleep(clk, flags, req, rem): rem is written
// when the sleep was cut short.
template <int kRemArg>
SyscallClass sleep_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (c.result == -EINTR) add_region(out, c.args[kRemArg], sizeof(struct timespec));
  return SyscallClass::Modelled;
}

}  // namespace

void register_time_models(std::vector<ModelEntry>& out) {
  out.insert(out.end(), {
      {SYS_clock_gettime, {"clock_gettime", fixed_out<1, sizeof(struct timespec)>}},
      {SYS_clock_getres, {"clock_getres", fixed_out<1, sizeof(struct timespec)>}},
      {SYS_gettimeofday, {"gettimeofday", gettimeofday_model}},
      {SYS_time, {"time", time_model}},
      {SYS_nanosleep, {"nanosleep", sleep_model<1>}},
      {SYS_clock_nanosleep, {"clock_nanosleep", sleep_model<3>}},
      {SYS_times, {"times", fixed_out<0, sizeof(struct tms)>}},
      {SYS_getitimer, {"getitimer", fixed_out<1, sizeof(struct itimerval)>}},
      {SYS_setitimer, {"setitimer", fixed_out<2, sizeof(struct itimerval)>}},
      {SYS_alarm, {"alarm", no_outputs}},
      {SYS_timerfd_create, {"timerfd_create", no_outputs}},
      {SYS_timerfd_settime, {"timerfd_settime", fixed_out<3, sizeof(struct itimerspec)>}},
      {SYS_timerfd_gettime, {"timerfd_gettime", fixed_out<1, sizeof(struct itimerspec)>}},
      {SYS_getrusage, {"getrusage", fixed_out<1, sizeof(struct rusage)>}},
  });
}

}  // namespace slsdbg::process
