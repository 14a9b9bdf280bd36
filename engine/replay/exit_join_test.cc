// Checks where the threaded replay finds the join a thread's end must wait
// for: a futex wait on the tid word later in the segment (not another op,
// word or call), or a thread of the next checkpoint standing before one.
#include "engine/replay/exit_join.h"

#include <gtest/gtest.h>
#include <linux/futex.h>
#include <sys/syscall.h>

namespace slsdbg::replay {
namespace {

constexpr uint64_t kWord = 0x7f00001009d0;
constexpr uint64_t kSyscallPc = 0x7f0000091234;

store::Event call(int32_t tid, int64_t nr, uint64_t a0, uint64_t a1) {
  store::Event ev;
  ev.kind = store::EventKind::Syscall;
  ev.tid = Tid(tid);
  ev.syscall_no = nr;
  ev.args = {a0, a1, 0, 0, 0, 0};
  return ev;
}

TEST(ExitJoin, FindsTheFutexWaitOnTheWordAfterTheExit) {
  std::vector<store::Event> events = {
      call(11, SYS_futex, kWord, FUTEX_WAIT),  // before the exit: not it
      call(12, SYS_exit, 0, 0),
      call(11, SYS_futex, kWord, FUTEX_WAKE),
      call(11, SYS_futex, kWord + 4, FUTEX_WAIT),
      call(11, SYS_read, kWord, FUTEX_WAIT),
      call(11, SYS_futex, kWord, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME),
  };
  EXPECT_EQ(futex_wait_after(events, 1, kWord), std::optional<size_t>(5));
  EXPECT_EQ(futex_wait_after(events, 5, kWord), std::nullopt);
  EXPECT_EQ(futex_wait_after(events, 1, 0), std::nullopt);  // no tid word known
}

store::ThreadState thread_at(int32_t tid, uint64_t rip, uint64_t rax, uint64_t rdi, uint64_t rsi) {
  store::ThreadState t;
  t.tid = Tid(tid);
  t.regs.rip = rip;
  t.regs.rax = rax;
  t.regs.rdi = rdi;
  t.regs.rsi = rsi;
  return t;
}

TEST(ExitJoin, FindsAJoinerStandingBeforeItsWaitAtTheCheckpoint) {
  auto syscall_insn = [](uint64_t pc) { return pc == kSyscallPc; };
  store::ProcessState at;
  at.threads.push_back(thread_at(11, kSyscallPc, SYS_futex, kWord, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG));
  EXPECT_TRUE(waits_on_word_at(at, Tid(12), kWord, syscall_insn));
  EXPECT_FALSE(waits_on_word_at(at, Tid(11), kWord, syscall_insn));  // the exiting thread itself
  EXPECT_FALSE(waits_on_word_at(at, Tid(12), kWord + 8, syscall_insn));
  EXPECT_FALSE(waits_on_word_at(at, Tid(12), 0, syscall_insn));
  at.threads[0].regs.rip = kSyscallPc + 2;  // past it: the same registers by chance
  EXPECT_FALSE(waits_on_word_at(at, Tid(12), kWord, syscall_insn));
  at.threads[0] = thread_at(11, kSyscallPc, SYS_futex, kWord, FUTEX_WAKE);
  EXPECT_FALSE(waits_on_word_at(at, Tid(12), kWord, syscall_insn));
}

}  // namespace
}  // namespace slsdbg::replay
