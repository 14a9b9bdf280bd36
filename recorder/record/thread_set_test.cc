#include "recorder/record/thread_set.h"

#include <gtest/gtest.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <thread>

namespace slsdbg::recorder {
namespace {

TEST(ThreadSet, FutexWaitsBlockWakesDoNot) {
  EXPECT_TRUE(may_block(SYS_futex, {0, FUTEX_WAIT_PRIVATE, 0, 0, 0, 0}));
  EXPECT_TRUE(may_block(SYS_futex, {0, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, 0, 0, 0, 0}));
  EXPECT_FALSE(may_block(SYS_futex, {0, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0}));
  EXPECT_TRUE(may_block(SYS_sched_yield, {}));
  EXPECT_FALSE(may_block(SYS_getpid, {}));
}

TEST(ThreadSet, RoundRobinOverParkedThreadsWrapsAround) {
  ThreadSet s(100);
  s.add(101);
  s.add(102);
  s.add(103);
  EXPECT_EQ(s.started(), 4u);
  EXPECT_EQ(s.running(), 100);
  EXPECT_FALSE(s.next_parked(100));  // none has stopped yet
  s.at(101).where = ThreadCtx::Where::Parked;
  s.at(103).where = ThreadCtx::Where::Parked;
  EXPECT_EQ(s.next_parked(100), 101);
  EXPECT_EQ(s.next_parked(101), 103);
  EXPECT_EQ(s.next_parked(103), 101);  // 100 runs, 102 is in the kernel
  s.set_running(101);
  EXPECT_EQ(s.at(100).where, ThreadCtx::Where::Parked);
  EXPECT_EQ(s.next_parked(101), 103);
  s.remove(101);
  EXPECT_EQ(s.running(), -1);
  EXPECT_EQ((s.tids()), (std::vector<pid_t>{100, 102, 103}));
}

TEST(ThreadSet, AThreadOfThisProcessIsKnownAsOne) {
  std::atomic<pid_t> tid{0};
  std::atomic<bool> done{false};
  std::thread t([&] {
    tid = static_cast<pid_t>(syscall(SYS_gettid));
    while (!done) usleep(100);
  });
  while (tid == 0) usleep(100);
  EXPECT_TRUE(is_thread_of(tid, getpid()));
  EXPECT_TRUE(is_thread_of(getpid(), getpid()));
  EXPECT_FALSE(is_thread_of(getppid(), getpid()));
  done = true;
  t.join();
}

}  // namespace
}  // namespace slsdbg::recorder
