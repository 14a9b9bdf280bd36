// The recorder's progress hint: the tracee's CPU time, read from outside
// the process, exact while it is stopped.
#include "process/task_clock.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

namespace slsdbg::process {
namespace {

uint64_t own_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000ull + uint64_t(ts.tv_nsec);
}

TEST(TaskClock, ReadsAnotherProcessesCpuTimeAndStandsStillWhileItIsStopped) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const uint64_t start = own_cpu_ns();
    volatile uint64_t x = 0;
    while (own_cpu_ns() - start < 40'000'000) x = x + 1;  // 40 ms of CPU
    raise(SIGSTOP);
    _exit(0);
  }
  TaskClock clock = TaskClock::open(pid);
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, WUNTRACED), pid);
  ASSERT_TRUE(WIFSTOPPED(st));
  Result<uint64_t> a = clock.read();
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_GE(*a, 40'000'000u);
  EXPECT_LT(*a, 10'000'000'000u);
  usleep(20'000);
  Result<uint64_t> b = clock.read();
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(*a, *b);  // stopped: no CPU time passes
  kill(pid, SIGKILL);
  waitpid(pid, &st, 0);
  EXPECT_FALSE(clock.read().ok());  // reaped: no such process
}

}  // namespace
}  // namespace slsdbg::process
