// RemoteCalls' batches on a real tracee: `batch_raw` runs every call, the
// ones after a failure in a second stop, each with its own result;
// `batch` stops at the failure and names it.
#include "engine/restore/remote_calls.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "process/inject.h"
#include "process/test_tracee.h"

namespace slsdbg::restore {
namespace {

TEST(RemoteCalls, BatchesGoOnOrStopAtAFailure) {
  auto t = process::testing::CommandTracee::start();
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_TRUE(t->command("G").ok());
  process::Task& task = t->task();
  ASSERT_TRUE(process::install_injection_page(task).ok());
  auto scratch = process::inject_syscall(task, SYS_mmap, {0, 4 * 4096, PROT_READ | PROT_WRITE,
                                                          MAP_PRIVATE | MAP_ANONYMOUS, static_cast<uint64_t>(-1), 0});
  ASSERT_TRUE(scratch.ok() && *scratch > 0);
  RemoteCalls rc(task);
  rc.use_scratch(uint64_t(*scratch), 4 * 4096);
  const process::InjectedCall pid{SYS_getpid, {}}, bad{SYS_close, {9999, 0, 0, 0, 0, 0}}, ppid{SYS_getppid, {}};
  const process::InjectedCall raw[] = {pid, bad, ppid, bad, pid};
  auto all = rc.batch_raw(raw);
  ASSERT_TRUE(all.ok()) << all.error().message;
  ASSERT_EQ(all->size(), 5u);
  EXPECT_EQ((*all)[0], t->pid());
  EXPECT_EQ((*all)[1], -EBADF);
  EXPECT_EQ((*all)[2], getpid()) << "the call after a failure ran";
  EXPECT_EQ((*all)[3], -EBADF);
  EXPECT_EQ((*all)[4], t->pid());
  const RemoteCalls::Queued queued[] = {{"getpid", pid}, {"closing fd 9999", bad}, {"getppid", ppid}};
  auto stopped = rc.batch(queued);
  ASSERT_FALSE(stopped.ok());
  EXPECT_NE(stopped.error().message.find("closing fd 9999"), std::string::npos) << stopped.error().message;
  EXPECT_TRUE(t->command("M 2").ok()) << "the program carries on";
}

}  // namespace
}  // namespace slsdbg::restore
