#include "engine/replay/rep_store.h"
#include "engine/replay/thread_noise.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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

// A thread standing at a rep string instruction with rcx iterations left.
user_regs_struct rep_regs(uint64_t rdi, uint64_t rsi, uint64_t rcx, uint64_t rax) {
  user_regs_struct r{};
  r.rdi = rdi;
  r.rsi = rsi;
  r.rcx = rcx;
  r.rax = rax;
  return r;
}

TEST(RepAhead, StosStoresTheElementPatternFromRdi) {
  user_regs_struct r = rep_regs(0x5002, 0, 3, 0x44332211);
  auto a = rep_ahead(RepStore{4, false}, r);
  ASSERT_TRUE(a);
  EXPECT_EQ(0x5002u, a->begin);
  EXPECT_EQ(0x500eu, a->end);
  std::vector<uint8_t> out(6);
  ASSERT_TRUE(rep_ahead_bytes(*a, 0x5004, out, {}).ok());
  EXPECT_EQ(std::vector<uint8_t>({0x33, 0x44, 0x11, 0x22, 0x33, 0x44}), out);
  EXPECT_FALSE(rep_ahead_bytes(*a, 0x500c, out, {}).ok()) << "past the last iteration";
  r.eflags = 0x400;  // DF: elements at rdi, rdi-4, rdi-8
  a = rep_ahead(RepStore{4, false}, r);
  ASSERT_TRUE(a);
  EXPECT_EQ(0x4ffau, a->begin);
  EXPECT_EQ(0x5006u, a->end);
  r.rcx = 0;
  EXPECT_FALSE(rep_ahead(RepStore{4, false}, r)) << "nothing left to store";
}

TEST(RepAhead, MovsStoresItsSourceUnlessTheyOverlap) {
  user_regs_struct r = rep_regs(0x9000, 0x1000, 64, 0);
  auto a = rep_ahead(RepStore{1, true}, r);
  ASSERT_TRUE(a);
  const ImageReader source = [](uint64_t addr, std::span<uint8_t> out) {
    for (size_t i = 0; i < out.size(); i++) out[i] = static_cast<uint8_t>(addr + i);
    return ok_status();
  };
  std::vector<uint8_t> out(2);
  ASSERT_TRUE(rep_ahead_bytes(*a, 0x9010, out, source).ok());
  EXPECT_EQ(std::vector<uint8_t>({0x10, 0x11}), out);
  r.rsi = 0x9000 - 8;  // the destination's next bytes are the source's later ones
  EXPECT_FALSE(rep_ahead(RepStore{1, true}, r));
}

// thr_memset at a tick inside memcpy: the rest of the 64-byte line at rdi
// held the new bytes in the recording, the old ones in replay (which stops
// exactly at rdi). Those are the instruction's own stores; another byte is not.
TEST(RepAhead, BytesStoredAheadAreNoiseToBeSet) {
  constexpr uint64_t page = 0x7000;
  std::vector<uint8_t> live(4096, 3), recorded(4096, 3);
  for (size_t i = 0; i < 0xfc1; i++) live[i] = recorded[i] = 4;
  for (size_t i = 0xfc1; i < 4096; i++) recorded[i] = 4;
  const std::vector<RepAhead> ahead = {*rep_ahead(RepStore{1, true}, rep_regs(page + 0xfc1, 0x100000, 0x10000, 0))};
  const ImageReader fours = [](uint64_t, std::span<uint8_t> out) {
    std::fill(out.begin(), out.end(), 4);
    return ok_status();
  };
  ThreadSettle settle;
  EXPECT_TRUE(equal_but_thread_noise(page, live, recorded, {}, ahead, fours, fours, settle));
  ASSERT_EQ(1u, settle.rep_ahead_runs.size());
  EXPECT_EQ(page + 0xfc1, settle.rep_ahead_runs[0].addr);
  EXPECT_EQ(63u, settle.rep_ahead_runs[0].len);
  ThreadSettle none;
  EXPECT_FALSE(equal_but_thread_noise(page, live, recorded, {}, {}, fours, fours, none)) << "without the rep string";
  recorded[0xff0] = 5;  // not what the copy stores there
  ThreadSettle other;
  EXPECT_FALSE(equal_but_thread_noise(page, live, recorded, {}, ahead, fours, fours, other));
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

// Heap to mmap is terabytes: one buffer over both asked for that much
// (std::bad_alloc in xz -T2's replay).
TEST(RepStore, CopiesBetweenBuffersTerabytesApart) {
  const size_t page = 4096;
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE;
  void* lo = mmap(reinterpret_cast<void*>(0x100000000000ull), page, PROT_READ | PROT_WRITE, flags, -1, 0);
  void* hi = mmap(reinterpret_cast<void*>(0x500000000000ull), page, PROT_READ | PROT_WRITE, flags, -1, 0);
  ASSERT_NE(MAP_FAILED, lo);
  ASSERT_NE(MAP_FAILED, hi);
  std::memset(hi, 0x5a, page);
  std::memset(lo, 0, page);
  const pid_t pid = stopped_child();
  ASSERT_GT(pid, 0);
  const std::vector<uint8_t> got =
      copy_in_child(pid, reinterpret_cast<uint64_t>(hi), reinterpret_cast<uint64_t>(lo), page);
  end_child(pid);
  EXPECT_EQ(std::vector<uint8_t>(page, 0x5a), got);
  munmap(lo, page);
  munmap(hi, page);
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
