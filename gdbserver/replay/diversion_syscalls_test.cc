#include "gdbserver/replay/diversion_syscalls.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/syscall.h>

namespace slsdbg::gdbserver {
namespace {

TEST(DivertedSyscall, NothingReachesAFile) {
  for (int64_t nr : {SYS_openat, SYS_open, SYS_creat, SYS_read, SYS_pwrite64, SYS_writev, SYS_close, SYS_lseek,
                     SYS_unlink, SYS_rename, SYS_ftruncate, SYS_ioctl, SYS_fork, SYS_clone, SYS_execve, SYS_kill,
                     SYS_futex, SYS_socket})
    EXPECT_EQ(diverted_syscall(nr, {3, 0, 0, 0, 0, 0}), DivertedSyscall::Fail) << nr;
  // write: only stdout and stderr, and those go to slsdbg's own.
  EXPECT_EQ(diverted_syscall(SYS_write, {1, 0, 5, 0, 0, 0}), DivertedSyscall::Output);
  EXPECT_EQ(diverted_syscall(SYS_write, {2, 0, 5, 0, 0, 0}), DivertedSyscall::Output);
  EXPECT_EQ(diverted_syscall(SYS_write, {3, 0, 5, 0, 0, 0}), DivertedSyscall::Fail);
  // mmap of a file descriptor fails; anonymous memory (malloc) runs.
  EXPECT_EQ(diverted_syscall(SYS_mmap, {0, 4096, PROT_READ, MAP_PRIVATE, 3, 0}), DivertedSyscall::Fail);
  EXPECT_EQ(diverted_syscall(SYS_mmap, {0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, uint64_t(-1), 0}),
            DivertedSyscall::Run);
}

TEST(DivertedSyscall, TheCopysOwnStateRuns) {
  for (int64_t nr : {SYS_brk, SYS_munmap, SYS_mprotect, SYS_rt_sigprocmask, SYS_rt_sigreturn, SYS_clock_gettime,
                     SYS_getpid, SYS_exit_group})
    EXPECT_EQ(diverted_syscall(nr, {0, 0, 0, 0, 0, 0}), DivertedSyscall::Run) << nr;
}

}  // namespace
}  // namespace slsdbg::gdbserver
