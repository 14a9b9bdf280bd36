#include "recorder/record/capture_activity.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>

namespace slsdbg::recorder {
namespace {

TEST(CaptureActivity, FutexLeavesTheCapturedStateAlone) {
  EXPECT_TRUE(leaves_capture_state_alone(SYS_futex));
}

TEST(CaptureActivity, CallsThatChangeMapsHandlersFdsOrCwdCount) {
  for (long nr : {SYS_mmap, SYS_munmap, SYS_mprotect, SYS_brk, SYS_rt_sigaction, SYS_openat, SYS_close, SYS_dup2,
                  SYS_read, SYS_lseek, SYS_chdir, SYS_clone, SYS_clone3, SYS_execve})
    EXPECT_FALSE(leaves_capture_state_alone(nr)) << nr;
  EXPECT_FALSE(leaves_capture_state_alone(-1));
  EXPECT_FALSE(leaves_capture_state_alone(100000));
}

}  // namespace
}  // namespace slsdbg::recorder
