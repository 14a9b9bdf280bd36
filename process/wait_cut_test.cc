// WaitCut on a real tracee spinning in user space (no syscall, so nothing
// but the cut ends its wait): the debugger's interrupt byte on a socket cuts
// a long wait inside a ProgramRun; other bytes do not; the thread is left
// stopped and can be stepped on.
#include "process/wait_cut.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "process/spawn.h"
#include "process/task.h"

namespace slsdbg::process {
namespace {

using Clock = std::chrono::steady_clock;

Result<Task> spinning_shell() {
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "while :; do :; done"};
  return spawn_traced(o);
}

TEST(WaitCut, TheInterruptByteCutsALongWaitOfAProgramRun) {
  auto task = spinning_shell();
  ASSERT_TRUE(task.ok()) << task.error().message;
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  {
    WaitCut cut(sv[0]);
    const ProgramRun run;
    ASSERT_TRUE(task->cont().ok());
    std::thread debugger([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(150));
      (void)!::write(sv[1], "+", 1);  // not an interrupt: nothing is cut
      std::this_thread::sleep_for(std::chrono::milliseconds(150));
      (void)!::write(sv[1], "\x03", 1);
    });
    const auto t0 = Clock::now();
    auto w = task->wait();
    const auto took = Clock::now() - t0;
    debugger.join();
    ASSERT_FALSE(w.ok());
    EXPECT_EQ(w.error().errno_value, EINTR) << w.error().message;
    EXPECT_TRUE(cut.fired());
    EXPECT_GE(took, std::chrono::milliseconds(250));  // the '+' alone cut nothing
    EXPECT_LT(took, std::chrono::seconds(10));
    cut.disarm();
    // Stopped, in the kernel's eyes too: a single step works from there.
    ASSERT_TRUE(task->singlestep().ok());
    auto step = task->wait();
    ASSERT_TRUE(step.ok()) << step.error().message;
    EXPECT_EQ(step->kind, StopKind::SignalDelivery);
    EXPECT_EQ(step->signo, SIGTRAP);
  }
  task->kill_and_reap();
  ::close(sv[0]);
  ::close(sv[1]);
}

TEST(WaitCut, InertWithoutADescriptor) {
  WaitCut cut(-1);
  EXPECT_FALSE(cut.fired());
  cut.request();
  cut.disarm();
  EXPECT_FALSE(cut.fired());
}

}  // namespace
}  // namespace slsdbg::process
