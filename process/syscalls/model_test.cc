// Checks the syscall output models: which tracee bytes each family reports as
// written, for successful and failed calls, and that unknown requests are
// reported as unmodelled (so a checkpoint gets forced).
#include <asm/termbits.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <sys/uio.h>

#include <cstring>

#include "process/syscalls/model.h"

namespace slsdbg::process {
namespace {

// Serves reads from a host buffer standing in for tracee memory at `base`.
class FakeMemory final : public RemoteReader {
 public:
  FakeMemory(uint64_t base, std::vector<uint8_t> bytes) : base_(base), bytes_(std::move(bytes)) {}
  Status read(uint64_t addr, void* out, uint64_t len) const override {
    if (addr < base_ || addr + len > base_ + bytes_.size()) return Error::msg("EFAULT");
    std::memcpy(out, bytes_.data() + (addr - base_), len);
    return ok_status();
  }

 private:
  uint64_t base_;
  std::vector<uint8_t> bytes_;
};

struct ModelRun {
  SyscallClass cls;
  std::vector<OutputRegion> regions;
};

ModelRun run(long nr, std::array<uint64_t, 6> args, int64_t result, const RemoteReader& mem = FakeMemory(0, {})) {
  const SyscallModel* m = find_syscall_model(nr);
  EXPECT_NE(m, nullptr) << "no model for " << nr;
  ModelRun r{SyscallClass::Unmodelled, {}};
  if (m) r.cls = m->outputs(SyscallCall{nr, args, result}, mem, r.regions);
  return r;
}

TEST(SyscallModels, ReadReportsExactlyTheBytesRead) {
  ModelRun r = run(SYS_read, {0, 0x1000, 4096}, 17);
  EXPECT_EQ(r.cls, SyscallClass::Modelled);
  ASSERT_EQ(r.regions.size(), 1u);
  EXPECT_EQ(r.regions[0].addr, 0x1000u);
  EXPECT_EQ(r.regions[0].len, 17u);
  EXPECT_TRUE(run(SYS_read, {0, 0x1000, 4096}, -EAGAIN).regions.empty());
  EXPECT_TRUE(run(SYS_read, {0, 0x1000, 4096}, 0).regions.empty());
}

TEST(SyscallModels, ReadvSpreadsTheResultOverTheIovecs) {
  iovec iov[3] = {{reinterpret_cast<void*>(0x5000), 10}, {reinterpret_cast<void*>(0x6000), 10},
                  {reinterpret_cast<void*>(0x7000), 10}};
  std::vector<uint8_t> bytes(sizeof iov);
  std::memcpy(bytes.data(), iov, sizeof iov);
  FakeMemory mem(0x9000, bytes);
  ModelRun r = run(SYS_readv, {3, 0x9000, 3}, 15, mem);
  ASSERT_EQ(r.regions.size(), 2u);
  EXPECT_EQ(r.regions[0].addr, 0x5000u);
  EXPECT_EQ(r.regions[0].len, 10u);
  EXPECT_EQ(r.regions[1].addr, 0x6000u);
  EXPECT_EQ(r.regions[1].len, 5u);
}

TEST(SyscallModels, StatFamilyWritesTheStructOnSuccessOnly) {
  ModelRun r = run(SYS_newfstatat, {static_cast<uint64_t>(AT_FDCWD), 0x100, 0x2000, 0}, 0);
  ASSERT_EQ(r.regions.size(), 1u);
  EXPECT_EQ(r.regions[0].addr, 0x2000u);
  EXPECT_EQ(r.regions[0].len, sizeof(struct stat));
  EXPECT_TRUE(run(SYS_newfstatat, {static_cast<uint64_t>(AT_FDCWD), 0x100, 0x2000, 0}, -ENOENT).regions.empty());
}

TEST(SyscallModels, IoctlKnowsTerminalQueriesAndRefusesTheUnknown) {
  ModelRun tcgets = run(SYS_ioctl, {1, uint64_t{TCGETS}, 0x3000}, 0);
  EXPECT_EQ(tcgets.cls, SyscallClass::Modelled);
  ASSERT_EQ(tcgets.regions.size(), 1u);
  EXPECT_EQ(tcgets.regions[0].len, sizeof(struct termios));
  EXPECT_EQ(run(SYS_ioctl, {1, uint64_t{TCGETS}, 0x3000}, -ENOTTY).regions.size(), 0u);
  EXPECT_EQ(run(SYS_ioctl, {3, 0xdeadbeef, 0x3000}, 0).cls, SyscallClass::Unmodelled);
  EXPECT_EQ(run(SYS_ioctl, {3, 0xdeadbeef, 0x3000}, -ENOTTY).cls, SyscallClass::Modelled);
}

TEST(SyscallModels, AddressSpaceCallsAreFlagged) {
  for (long nr : {SYS_mmap, SYS_munmap, SYS_mremap, SYS_mprotect, SYS_brk, SYS_madvise})
    EXPECT_EQ(run(nr, {}, 0).cls, SyscallClass::AddressSpace) << syscall_name(nr);
}

TEST(SyscallModels, TimeAndRandomnessAreLoggedInputs) {
  EXPECT_EQ(run(SYS_clock_gettime, {1, 0x4000}, 0).regions.at(0).len, sizeof(struct timespec));
  EXPECT_EQ(run(SYS_getrandom, {0x4000, 32, 0}, 32).regions.at(0).len, 32u);
  EXPECT_EQ(run(SYS_gettimeofday, {0x4000, 0}, 0).regions.size(), 1u);
  // time(NULL) writes nothing; time(&t) writes t.
  EXPECT_TRUE(run(SYS_time, {0}, 12345).regions.empty());
  EXPECT_EQ(run(SYS_time, {0x4000}, 12345).regions.size(), 1u);
}

TEST(SyscallModels, FutexWakeOpIsUnmodelled) {
  EXPECT_EQ(run(SYS_futex, {0x1000, 0 /*FUTEX_WAIT*/, 1, 0}, -EAGAIN).cls, SyscallClass::Modelled);
  EXPECT_EQ(run(SYS_futex, {0x1000, 5 /*FUTEX_WAKE_OP*/, 1, 0}, 0).cls, SyscallClass::Unmodelled);
}

TEST(SyscallModels, CoversWhatTheTargetProgramsUse) {
  // From strace of python3 -c, sqlite3, gzip, sort and sha256sum.
  for (long nr : {SYS_read, SYS_write, SYS_openat, SYS_close, SYS_fstat, SYS_newfstatat, SYS_statx, SYS_lseek,
                  SYS_getdents64, SYS_ioctl, SYS_fcntl, SYS_getrandom, SYS_clock_gettime, SYS_gettimeofday,
                  SYS_nanosleep, SYS_clock_nanosleep, SYS_rt_sigaction, SYS_rt_sigprocmask, SYS_sigaltstack,
                  SYS_uname, SYS_getcwd, SYS_readlink, SYS_readlinkat, SYS_access, SYS_faccessat2, SYS_pipe2,
                  SYS_dup2, SYS_poll, SYS_select, SYS_prlimit64, SYS_sysinfo, SYS_getpid, SYS_set_tid_address,
                  SYS_set_robust_list, SYS_rseq, SYS_arch_prctl, SYS_futex, SYS_setitimer, SYS_getitimer,
                  SYS_exit_group, SYS_pread64, SYS_pwrite64, SYS_fdatasync, SYS_unlink, SYS_fchown,
                  SYS_fadvise64, SYS_sched_getaffinity, SYS_socket, SYS_connect, SYS_rt_sigreturn})
    EXPECT_NE(find_syscall_model(nr), nullptr) << "syscall " << nr;
  EXPECT_STREQ(syscall_name(SYS_openat), "openat");
  EXPECT_STREQ(syscall_name(499), "syscall_499");
}

}  // namespace
}  // namespace slsdbg::process

TEST(SyscallModels, EveryKernelSyscallHasItsName) {
  // Unmodelled calls are named too (refusals and divergences say which).
  EXPECT_STREQ(slsdbg::process::syscall_name(SYS_clone3), "clone3");
  EXPECT_STREQ(slsdbg::process::syscall_name(SYS_vfork), "vfork");
  EXPECT_STREQ(slsdbg::process::syscall_name(SYS_setns), "setns");
  EXPECT_STREQ(slsdbg::process::syscall_name(SYS_read), "read");
  EXPECT_STREQ(slsdbg::process::syscall_name(4000), "syscall_4000");
}

namespace slsdbg::process {
namespace {

// Children run unrecorded; a child that shared the parent's memory until it
// exec'd (vfork, CLONE_VM|CLONE_VFORK) forces a checkpoint after the call.
TEST(SyscallModels, ForkFamilyForcesACheckpointOnlyWhenTheChildSharedMemory) {
  EXPECT_EQ(run(SYS_fork, {}, 1234).cls, SyscallClass::Modelled);
  EXPECT_EQ(run(SYS_vfork, {}, 1234).cls, SyscallClass::Unmodelled);
  EXPECT_EQ(run(SYS_vfork, {}, -EAGAIN).cls, SyscallClass::Modelled);
  // glibc's fork: clone(CLONE_CHILD_SETTID|CLONE_CHILD_CLEARTID|SIGCHLD, 0, NULL, &tid)
  EXPECT_EQ(run(SYS_clone, {0x01200000 | 17, 0, 0, 0x7000, 0, 0}, 1234).cls, SyscallClass::Modelled);
  EXPECT_TRUE(run(SYS_clone, {0x01200000 | 17, 0, 0, 0x7000, 0, 0}, 1234).regions.empty());
  // posix_spawn: clone(CLONE_VM|CLONE_VFORK|SIGCHLD, stack ...)
  EXPECT_EQ(run(SYS_clone, {0x4100 | 17, 0x9000, 0, 0, 0, 0}, 1234).cls, SyscallClass::Unmodelled);
  // CLONE_PARENT_SETTID writes the child's tid into the parent.
  ModelRun r = run(SYS_clone, {0x00100000 | 17, 0, 0x8000, 0, 0, 0}, 1234);
  EXPECT_EQ(r.cls, SyscallClass::Modelled);
  ASSERT_EQ(r.regions.size(), 1u);
  EXPECT_EQ(r.regions[0].addr, 0x8000u);
  EXPECT_EQ(r.regions[0].len, 4u);
  // clone3 reads its flags from struct clone_args.
  uint64_t args[4] = {0x4100, 0, 0, 0};
  std::vector<uint8_t> bytes(sizeof args);
  std::memcpy(bytes.data(), args, sizeof args);
  EXPECT_EQ(run(SYS_clone3, {0x3000, 88, 0, 0, 0, 0}, 1234, FakeMemory(0x3000, bytes)).cls, SyscallClass::Unmodelled);
  args[0] = 17;
  std::memcpy(bytes.data(), args, sizeof args);
  EXPECT_EQ(run(SYS_clone3, {0x3000, 88, 0, 0, 0, 0}, 1234, FakeMemory(0x3000, bytes)).cls, SyscallClass::Modelled);
}

TEST(SyscallModels, WaitidReportsSiginfoAndRusage) {
  ModelRun r = run(SYS_waitid, {0, 1234, 0x5000, 4, 0x6000, 0}, 0);
  ASSERT_EQ(r.regions.size(), 2u);
  EXPECT_EQ(r.regions[0].addr, 0x5000u);
  EXPECT_EQ(r.regions[0].len, 128u);
  EXPECT_EQ(r.regions[1].addr, 0x6000u);
  EXPECT_TRUE(run(SYS_waitid, {0, 1234, 0x5000, 4, 0x6000, 0}, -ECHILD).regions.empty());
}

}  // namespace
}  // namespace slsdbg::process
