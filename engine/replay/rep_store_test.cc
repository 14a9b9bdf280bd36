#include "engine/replay/rep_store.h"
#include "engine/replay/rep_string.h"
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

// What replay needs to run n iterations by the CPU: the instruction's
// length (the breakpoint after it) and how cmps/scas end early.
TEST(RepString, DecodesLengthAndEndCondition) {
  const std::vector<uint8_t> movsb = {0xf3, 0xa4, 0x90}, stosq = {0xf3, 0x48, 0xab}, repe_cmpsb = {0xf3, 0xa6},
                             repne_scasb = {0xf2, 0xae}, addr32 = {0x67, 0xf3, 0xa4};
  auto m = decode_rep_string(movsb);
  ASSERT_TRUE(m);
  EXPECT_EQ(2u, m->length);
  EXPECT_EQ(RepUntil::Count, m->until);
  EXPECT_FALSE(rep_ended_early(*m, 0));
  auto s = decode_rep_string(stosq);
  ASSERT_TRUE(s);
  EXPECT_EQ(3u, s->length);
  EXPECT_EQ(8u, s->element_size);
  auto c = decode_rep_string(repe_cmpsb);
  ASSERT_TRUE(c);
  EXPECT_TRUE(rep_ended_early(*c, 0));      // ZF clear: the bytes differed
  EXPECT_FALSE(rep_ended_early(*c, 0x40));  // equal: goes on
  auto n = decode_rep_string(repne_scasb);
  ASSERT_TRUE(n);
  EXPECT_TRUE(rep_ended_early(*n, 0x40));  // found
  auto e = decode_rep_string(addr32);
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->counts_ecx);
  EXPECT_EQ(3u, e->length);
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

// A child stopped by SIGSTOP under PTRACE_TRACEME, with the parent's mappings.
pid_t stopped_child() {
  const pid_t pid = fork();
  if (pid == 0) {
    ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    raise(SIGSTOP);
    _exit(0);
  }
  int status = 0;
  return waitpid(pid, &status, 0) == pid ? pid : -1;
}

// memcpy from the heap into a thread's arena: source and destination far
// apart with nothing mapped between. The copy reads the source alone (one
// buffer over both ranges read the gap: EIO, or bad_alloc for its size).
TEST(RepStore, RunsAMovsBetweenRangesFarApart) {
  constexpr size_t kLen = 3 * 4096 + 100;
  auto* src = static_cast<uint8_t*>(mmap(nullptr, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(MAP_FAILED, src);
  void* far = reinterpret_cast<void*>((reinterpret_cast<uint64_t>(src) - (64ull << 30)) & ~uint64_t(0xfff));
  auto* dst = static_cast<uint8_t*>(
      mmap(far, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0));
  ASSERT_EQ(far, dst);
  for (size_t i = 0; i < kLen; i++) src[i] = static_cast<uint8_t>(i * 7 + 1);
  const pid_t pid = stopped_child();
  ASSERT_GT(pid, 0);
  int status = 0;
  process::Task task(Tid(pid), pid);
  auto regs = task.regs();
  ASSERT_TRUE(regs.ok());
  user_regs_struct at = *regs;
  at.rsi = reinterpret_cast<uint64_t>(src);
  at.rdi = reinterpret_cast<uint64_t>(dst);
  at.rcx = kLen + 5;
  at.eflags &= ~0x400ull;
  Status ran = run_iterations(task, RepStore{1, true}, at, kLen);
  ASSERT_TRUE(ran.ok()) << ran.error().message;
  std::vector<uint8_t> copied(kLen + 1);
  ASSERT_TRUE(task.read_memory(RemoteAddr(at.rdi), copied).ok());
  EXPECT_EQ(0, std::memcmp(copied.data(), src, kLen));
  EXPECT_EQ(0, copied[kLen]);  // one past the count: untouched
  auto after = task.regs();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(5u, after->rcx);
  EXPECT_EQ(at.rsi + kLen, after->rsi);
  EXPECT_EQ(at.rdi + kLen, after->rdi);
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  munmap(src, 4 * 4096);
  munmap(dst, 4 * 4096);
}

// Overlapping, destination 2 bytes above the source: upwards byte by byte
// repeats the first two, as the CPU does.
TEST(RepStore, RunsAnOverlappingMovsAsTheCpuDoes) {
  alignas(8) static uint8_t buf[16] = {'a', 'b'};
  const pid_t pid = stopped_child();
  ASSERT_GT(pid, 0);
  process::Task task(Tid(pid), pid);
  auto regs = task.regs();
  ASSERT_TRUE(regs.ok());
  user_regs_struct at = *regs;
  at.rsi = reinterpret_cast<uint64_t>(buf);
  at.rdi = at.rsi + 2;
  at.rcx = 6;
  at.eflags &= ~0x400ull;
  Status ran = run_iterations(task, RepStore{1, true}, at, 6);
  ASSERT_TRUE(ran.ok()) << ran.error().message;
  std::vector<uint8_t> copied(8);
  ASSERT_TRUE(task.read_memory(RemoteAddr(at.rsi), copied).ok());
  EXPECT_EQ(std::vector<uint8_t>({'a', 'b', 'a', 'b', 'a', 'b', 'a', 'b'}), copied);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
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

}  // namespace
}  // namespace slsdbg::replay
