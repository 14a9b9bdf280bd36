#include "engine/replay/rep_store.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace slsdbg::replay {
namespace {

TEST(RepStore, DecodesStosAndMovs) {
  const std::vector<uint8_t> stosb = {0xf3, 0xaa}, movsq = {0xf3, 0x48, 0xa5}, movsw = {0x66, 0xf3, 0xa5};
  auto a = decode_rep_store(stosb);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->size, 1u);
  EXPECT_FALSE(a->movs);
  auto b = decode_rep_store(movsq);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->size, 8u);
  EXPECT_TRUE(b->movs);
  auto c = decode_rep_store(movsw);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->size, 2u);
  const std::vector<uint8_t> plain_stosb = {0xaa}, rep_nop = {0xf3, 0x90}, cut = {0xf3};
  EXPECT_FALSE(decode_rep_store(plain_stosb));
  EXPECT_FALSE(decode_rep_store(rep_nop));
  EXPECT_FALSE(decode_rep_store(cut));
}

TEST(RepStore, IterationsBetweenStartAndTick) {
  user_regs_struct at{};
  at.rip = 0x1000;
  at.rcx = 100;
  at.rdi = 0x5000;
  at.rsi = 0x9000;
  at.rax = 7;
  user_regs_struct target = at;
  target.rcx = 40;
  target.rdi = 0x5000 + 60 * 8;
  target.rsi = 0x9000 + 60 * 8;
  EXPECT_EQ(iterations_between(RepStore{8, true}, at, target), std::optional<uint64_t>(60));
  EXPECT_FALSE(iterations_between(RepStore{1, true}, at, target));  // rdi moved 8 per iteration
  EXPECT_FALSE(iterations_between(RepStore{8, false}, at, target));  // stos leaves rsi
  target.rsi = at.rsi;
  EXPECT_EQ(iterations_between(RepStore{8, false}, at, target), std::optional<uint64_t>(60));
  target.rax = 8;  // another value stored: not this run
  EXPECT_FALSE(iterations_between(RepStore{8, false}, at, target));
  target = at;  // no iteration between them
  EXPECT_FALSE(iterations_between(RepStore{1, false}, at, target));
  at.eflags = target.eflags = 0x400;  // DF: downwards
  target.rcx = 90;
  target.rdi = at.rdi - 10;
  EXPECT_EQ(iterations_between(RepStore{1, false}, at, target), std::optional<uint64_t>(10));
}

// A child stopped by SIGSTOP under PTRACE_TRACEME, sharing the parent's
// mappings as they were at the fork.
pid_t stopped_child() {
  const pid_t pid = fork();
  if (pid == 0) {
    ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    raise(SIGSTOP);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return pid;
}

// `rep movsb` of `n` bytes from src to dst in a stopped child: the bytes at
// dst afterwards (empty on an error, reported).
std::vector<uint8_t> copy_in_child(pid_t pid, uint64_t src, uint64_t dst, uint64_t n) {
  process::Task task(Tid(pid), pid);
  auto regs = task.regs();
  EXPECT_TRUE(regs.ok());
  if (!regs.ok()) return {};
  user_regs_struct at = *regs;
  at.eflags &= ~0x400ull;  // upwards
  at.rcx = n;
  at.rsi = src;
  at.rdi = dst;
  Status st = run_iterations(task, RepStore{1, true}, at, n);
  EXPECT_TRUE(st.ok()) << st.error().message;
  if (!st.ok()) return {};
  auto after = task.regs();
  EXPECT_TRUE(after.ok());
  if (after.ok()) {
    EXPECT_EQ(0u, after->rcx);
    EXPECT_EQ(src + n, after->rsi);
    EXPECT_EQ(dst + n, after->rdi);
  }
  std::vector<uint8_t> out(n);
  EXPECT_TRUE(task.read_memory(RemoteAddr(dst), out).ok());
  return out;
}

void end_child(pid_t pid) {
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
}

// memcpy between two buffers with an unmapped page between them (a thread
// arena's freed tail in thr_memset's recordings): the copy reads the source
// and writes the destination only. It read one buffer spanning both, and
// failed with EIO at the hole (or bad_alloc when they lay terabytes apart).
TEST(RepStore, CopiesAcrossAnUnmappedGapBetweenSourceAndDestination) {
  const size_t page = 4096;
  auto* area = static_cast<uint8_t*>(mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(MAP_FAILED, area);
  for (size_t i = 0; i < page; i++) area[i] = static_cast<uint8_t>(i * 7 + 1);
  std::memset(area + 2 * page, 0, page);
  ASSERT_EQ(0, munmap(area + page, page));
  const pid_t pid = stopped_child();
  ASSERT_GT(pid, 0);
  const uint64_t src = reinterpret_cast<uint64_t>(area), dst = src + 2 * page;
  const std::vector<uint8_t> got = copy_in_child(pid, src + 16, dst + 16, 1000);
  end_child(pid);
  ASSERT_EQ(1000u, got.size());
  EXPECT_EQ(0, std::memcmp(got.data(), area + 16, 1000));
  munmap(area, page);
  munmap(area + 2 * page, page);
}

// Overlapping, destination above the source: byte by byte upwards repeats
// the first bytes, as the CPU does.
TEST(RepStore, OverlappingCopyRepeatsAsTheCpuDoes) {
  const size_t page = 4096;
  auto* area = static_cast<uint8_t*>(mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(MAP_FAILED, area);
  std::memset(area, 0, page);
  area[0] = 'a';
  area[1] = 'b';
  const pid_t pid = stopped_child();
  ASSERT_GT(pid, 0);
  const uint64_t base = reinterpret_cast<uint64_t>(area);
  const std::vector<uint8_t> got = copy_in_child(pid, base, base + 2, 6);
  end_child(pid);
  EXPECT_EQ(std::vector<uint8_t>({'a', 'b', 'a', 'b', 'a', 'b'}), got);
  munmap(area, page);
}

}  // namespace
}  // namespace slsdbg::replay
