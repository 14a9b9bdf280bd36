#include "recorder/record/thread_set.h"

#include <gtest/gtest.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <sched.h>
#include <atomic>
#include <cstring>
#include <thread>

namespace slsdbg::recorder {

using process::RemoteReader;
namespace {

TEST(ThreadSet, FutexWaitsBlockWakesDoNot) {
  EXPECT_TRUE(may_block(SYS_futex, {0, FUTEX_WAIT_PRIVATE, 0, 0, 0, 0}));
  EXPECT_TRUE(may_block(SYS_futex, {0, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, 0, 0, 0, 0}));
  EXPECT_FALSE(may_block(SYS_futex, {0, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0}));
  EXPECT_TRUE(may_block(SYS_sched_yield, {}));
  EXPECT_FALSE(may_block(SYS_getpid, {}));
}

struct BytesAt final : RemoteReader {
  uint64_t base;
  std::vector<uint64_t> words;
  Status read(uint64_t addr, void* out, uint64_t len) const override {
    if (addr < base || addr + len > base + words.size() * 8) return Error::msg("unmapped");
    std::memcpy(out, reinterpret_cast<const uint8_t*>(words.data()) + (addr - base), len);
    return ok_status();
  }
};

// glibc's pthread_create: clone3 with CLONE_CHILD_CLEARTID names the new
// thread's tid word; set_tid_address names the caller's; a fork's ctid is
// not a thread's.
TEST(ThreadSet, ClearChildTidComesFromSetTidAddressAndThreadClones) {
  BytesAt none;
  none.base = 0;
  auto s = clear_child_tid_set_by(100, SYS_set_tid_address, {0x7000, 0, 0, 0, 0, 0}, 100, none);
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, std::make_pair(pid_t(100), uint64_t(0x7000)));
  const uint64_t thread_flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
                                CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
  BytesAt args;
  args.base = 0x5000;
  args.words = {thread_flags, 0, 0x7f12345682d0, 0x7f12345682d0};
  s = clear_child_tid_set_by(100, SYS_clone3, {0x5000, 88, 0, 0, 0, 0}, 101, args);
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, std::make_pair(pid_t(101), uint64_t(0x7f12345682d0)));
  s = clear_child_tid_set_by(100, SYS_clone, {thread_flags, 0x9000, 0x8000, 0x8008, 0, 0}, 102, none);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->second, 0x8008u);
  EXPECT_FALSE(clear_child_tid_set_by(100, SYS_clone, {CLONE_CHILD_CLEARTID | 17, 0, 0, 0x8008, 0, 0}, 103, none));
  EXPECT_FALSE(clear_child_tid_set_by(100, SYS_clone3, {0x5000, 88, 0, 0, 0, 0}, -11, args));
  EXPECT_FALSE(clear_child_tid_set_by(100, SYS_getpid, {}, 100, none));
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

// Only resumptions into program code count; a stop ends one.
TEST(ThreadSet, TwoThreadsRunningProgramCodeAreAnOverlap) {
  ThreadSet s(100);
  s.add(101);
  EXPECT_EQ(s.note_resumed(100, true), std::nullopt);
  EXPECT_EQ(s.note_resumed(101, false), std::nullopt);  // into the kernel only
  EXPECT_EQ(s.overlaps(), 0u);
  EXPECT_EQ(s.note_resumed(101, true), 100);
  EXPECT_EQ(s.overlaps(), 1u);
  s.note_stopped(100);
  s.note_stopped(101);
  EXPECT_EQ(s.note_resumed(101, true), std::nullopt);
  s.remove(101);
  EXPECT_EQ(s.note_resumed(100, true), std::nullopt);
  EXPECT_EQ(s.overlaps(), 1u);
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
