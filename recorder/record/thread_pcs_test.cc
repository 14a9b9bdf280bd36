#include "recorder/record/thread_pcs.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

using namespace slsdbg::recorder;

TEST(ThreadPcs, ReadsThePcOfEachKindOfLine) {
  EXPECT_EQ(pc_of_syscall_line("0 0x3 0x7f70 0x1 0x7f7 0x0 0x7fff 0x7fff71 0x7f7034fbd2ec\n"), 0x7f7034fbd2ecull);
  EXPECT_EQ(pc_of_syscall_line("-1 0x7ffd1000 0x401000"), 0x401000ull);
  EXPECT_EQ(pc_of_syscall_line("running"), std::nullopt);
  EXPECT_EQ(pc_of_syscall_line(""), std::nullopt);
  EXPECT_EQ(pc_of_syscall_line("-1 0x7ffd1000 0x40zz"), std::nullopt);
}

TEST(ThreadPcs, AThreadWaitingInACallStandsRightAfterItsSyscall) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::atomic<pid_t> tid{0};
  std::thread reader([&] {
    tid = static_cast<pid_t>(syscall(SYS_gettid));
    char c;
    (void)!read(fds[0], &c, 1);
  });
  std::optional<std::vector<uint64_t>> pcs;
  // Until the reader is inside its read (it is "running" before).
  for (int i = 0; i < 2000; i++) {
    auto r = other_thread_pcs(getpid(), static_cast<pid_t>(syscall(SYS_gettid)));
    ASSERT_TRUE(r.ok()) << r.error().message;
    if (*r && !(*r)->empty() && tid != 0) {
      pcs = **r;
      break;
    }
    usleep(1000);
  }
  ASSERT_TRUE(pcs.has_value()) << "the reader never waited in its read";
  ASSERT_EQ(pcs->size(), 1u);
  uint8_t insn[2];
  std::memcpy(insn, reinterpret_cast<const void*>((*pcs)[0] - 2), 2);
  EXPECT_EQ(insn[0], 0x0f);
  EXPECT_EQ(insn[1], 0x05);
  ASSERT_EQ(write(fds[1], "x", 1), 1);
  reader.join();
  close(fds[0]);
  close(fds[1]);
}

TEST(ThreadPcs, ARunningThreadLeavesThePcsUnknown) {
  std::atomic<bool> spin{true};
  std::atomic<bool> started{false};
  std::thread spinner([&] {
    started = true;
    while (spin) {
    }
  });
  while (!started) {
  }
  auto r = other_thread_pcs(getpid(), static_cast<pid_t>(syscall(SYS_gettid)));
  spin = false;
  spinner.join();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->has_value());
}
