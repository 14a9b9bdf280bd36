// Checks the counter stub by running it in this process: a small function is
// patched with a jump to the stub, called many times, and must still compute
// the same results while the stub's count equals the number of calls (also
// when the moved instruction is a direct call); code the stub cannot move is
// refused.
#include "engine/replay/counting_patch.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <signal.h>

#include <cstring>
#include <vector>

#include "engine/replay/stub_flags_test.h"

namespace slsdbg::replay {
namespace {

std::vector<uint8_t> padded(std::vector<uint8_t> code) {
  code.resize(32, 0x90);
  return code;
}

TEST(CountingPatch, CountsCallsAndKeepsResults) {
  // Two pages: the code at `pc`, the stub right after it.
  void* mem = mmap(nullptr, 2 * 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(MAP_FAILED, mem);
  auto* code = static_cast<uint8_t*>(mem);
  const uint64_t pc = reinterpret_cast<uint64_t>(code);
  const uint64_t page = pc + 4096;
  // int f(int x) { return (x + 1) ^ 3; }: mov eax, edi; add eax, 1; xor eax, 3; ret
  const std::vector<uint8_t> f = {0x89, 0xf8, 0x83, 0xc0, 0x01, 0x83, 0xf0, 0x03, 0xc3};
  std::memcpy(code, f.data(), f.size());
  auto stub = build_counter_stub(padded(f), pc, page);
  ASSERT_TRUE(stub.ok()) << stub.error().message;
  EXPECT_EQ(5u, stub->displaced);  // mov + add; xor and ret stay in place
  std::memcpy(reinterpret_cast<void*>(page), stub->bytes.data(), stub->bytes.size());
  code[0] = 0xe9;
  const int32_t rel = static_cast<int32_t>(static_cast<int64_t>(page - (pc + 5)));
  std::memcpy(code + 1, &rel, 4);
  auto fn = reinterpret_cast<int (*)(int)>(pc);
  for (int i = 0; i < 1000; i++) ASSERT_EQ((i + 1) ^ 3, fn(i));
  uint64_t count = 0;
  std::memcpy(&count, reinterpret_cast<void*>(page + kCounterCountOffset), 8);
  EXPECT_EQ(1000u, count);
  // Entering at the moved copy runs the instructions without counting.
  auto uncounted = reinterpret_cast<int (*)(int)>(stub->run);
  EXPECT_EQ((41 + 1) ^ 3, uncounted(41));
  std::memcpy(&count, reinterpret_cast<void*>(page + kCounterCountOffset), 8);
  EXPECT_EQ(1000u, count);
  munmap(mem, 2 * 4096);
}

TEST(CountingPatch, MovesADirectCall) {
  void* mem = mmap(nullptr, 2 * 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(MAP_FAILED, mem);
  auto* code = static_cast<uint8_t*>(mem);
  const uint64_t pc = reinterpret_cast<uint64_t>(code);
  const uint64_t page = pc + 4096;
  // f: call g; add eax, 1; ret.  g (at pc + 64): lea eax, [rdi + 7]; ret.  f(x) = x + 8
  std::vector<uint8_t> f = {0xe8, 59, 0, 0, 0, 0x83, 0xc0, 0x01, 0xc3};
  std::memcpy(code, f.data(), f.size());
  const uint8_t g[] = {0x8d, 0x47, 0x07, 0xc3};
  std::memcpy(code + 64, g, sizeof g);
  auto stub = build_counter_stub(padded(f), pc, page);
  ASSERT_TRUE(stub.ok()) << stub.error().message;
  EXPECT_EQ(5u, stub->displaced);
  std::memcpy(reinterpret_cast<void*>(page), stub->bytes.data(), stub->bytes.size());
  code[0] = 0xe9;
  const int32_t rel = static_cast<int32_t>(static_cast<int64_t>(page - (pc + 5)));
  std::memcpy(code + 1, &rel, 4);
  auto fn = reinterpret_cast<int (*)(int)>(pc);
  for (int i = 0; i < 100; i++) ASSERT_EQ(i + 8, fn(i));
  uint64_t count = 0;
  std::memcpy(&count, reinterpret_cast<void*>(page + kCounterCountOffset), 8);
  EXPECT_EQ(100u, count);
  munmap(mem, 2 * 4096);
}

TEST(CountingPatch, StopsAtTheLimit) {
  auto stub = build_counter_stub(padded({0x48, 0x83, 0xc0, 0x01, 0x90}), 0x401000, 0x500000);
  ASSERT_TRUE(stub.ok()) << stub.error().message;
  ASSERT_GT(stub->reached, 0x500000u);
  EXPECT_EQ(0xcc, stub->bytes[stub->reached - 0x500000 - 1]);  // int3 right before reached
  uint64_t limit = 1;
  std::memcpy(&limit, &stub->bytes[kCounterLimitOffset], 8);
  EXPECT_EQ(0u, limit);  // never, until the Timeline sets one
}

volatile sig_atomic_t g_traps = 0;
volatile uint64_t g_count_at_trap = 0;
const volatile uint64_t* g_count = nullptr;
void on_trap(int) {
  g_traps = g_traps + 1;
  g_count_at_trap = *g_count;
}

// The stub in this process, after a `cmp` whose flags the moved code reads:
// every visit keeps the program's flags, rax and rcx, is counted, and the
// limit's int3 comes once, at the limit's visit.
TEST(CountingPatch, KeepsFlagsAndRegistersAndTrapsAtTheLimit) {
  using namespace testing;
  void* mem = mmap(nullptr, 2 * 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(MAP_FAILED, mem);
  auto* code = static_cast<uint8_t*>(mem);
  const uint64_t fn = reinterpret_cast<uint64_t>(code), pc = fn + kFlagsFnPc, page = fn + 4096;
  std::memcpy(code, kFlagsFn.data(), kFlagsFn.size());
  auto stub = build_counter_stub(padded(std::vector<uint8_t>(code + kFlagsFnPc, code + kFlagsFn.size())), pc, page);
  ASSERT_TRUE(stub.ok()) << stub.error().message;
  EXPECT_EQ(kFlagsFnMoved, stub->displaced);
  std::memcpy(reinterpret_cast<void*>(page), stub->bytes.data(), stub->bytes.size());
  const uint64_t limit = 7;
  std::memcpy(reinterpret_cast<void*>(page + kCounterLimitOffset), &limit, 8);
  g_count = reinterpret_cast<const volatile uint64_t*>(page + kCounterCountOffset);
  code[kFlagsFnPc] = 0xe9;
  const int32_t rel = static_cast<int32_t>(static_cast<int64_t>(page - (pc + 5)));
  std::memcpy(code + kFlagsFnPc + 1, &rel, 4);
  struct sigaction sa{}, old{};
  sa.sa_handler = on_trap;
  ASSERT_EQ(0, sigaction(SIGTRAP, &sa, &old));
  g_traps = 0;
  auto f = reinterpret_cast<int64_t (*)(int64_t, int64_t, int64_t)>(fn);
  int visits = 0;
  for (int64_t x : {4, 5, 6})
    for (int64_t y : {5, 6})
      for (int64_t z : {8, 9}) {
        EXPECT_EQ(flags_fn_expected(x, y, z), f(x, y, z)) << x << " " << y << " " << z;
        visits++;
      }
  EXPECT_EQ(1, g_traps);
  EXPECT_EQ(limit, g_count_at_trap);
  EXPECT_EQ(static_cast<uint64_t>(visits), *g_count);
  sigaction(SIGTRAP, &old, nullptr);
  munmap(mem, 2 * 4096);
}

TEST(CountingPatch, RefusesCodeItCannotMove) {
  EXPECT_FALSE(build_counter_stub(padded({0xff, 0xd0}), 0x401000, 0x500000).ok());  // call rax
  EXPECT_FALSE(build_counter_stub(padded({0x5d, 0xc3}), 0x401000, 0x500000).ok());        // pop rbp; ret
}

}  // namespace
}  // namespace slsdbg::replay
