// Checks the counter stub by running it in this process: a small function is
// patched with a jump to the stub, called many times, and must still compute
// the same results while the stub's count equals the number of calls (also
// when the moved instruction is a direct call); code the stub cannot move is
// refused.
#include "engine/replay/counting_patch.h"

#include <gtest/gtest.h>

#include <signal.h>

#include <cstring>
#include <vector>

#include "engine/replay/code_pages_test.h"
#include "engine/replay/stub_flags_test.h"

namespace slsdbg::replay {
namespace {

std::vector<uint8_t> padded(std::vector<uint8_t> code) {
  code.resize(32, 0x90);
  return code;
}

TEST(CountingPatch, CountsCallsAndKeepsResults) {
  // Two pages: the code at `pc`, the stub right after it.
  testing::CodePages pages;
  ASSERT_TRUE(pages.ok());
  uint8_t* code = pages.code();
  const uint64_t pc = pages.base(), page = pages.stub();
  // int f(int x) { return (x + 1) ^ 3; }: mov eax, edi; add eax, 1; xor eax, 3; ret
  const std::vector<uint8_t> f = {0x89, 0xf8, 0x83, 0xc0, 0x01, 0x83, 0xf0, 0x03, 0xc3};
  std::memcpy(code, f.data(), f.size());
  auto stub = build_counter_stub(padded(f), pc, page);
  ASSERT_TRUE(stub.ok()) << stub.error().message;
  EXPECT_EQ(5u, stub->displaced);  // mov + add; xor and ret stay in place
  pages.place_stub(stub->bytes);
  pages.jump_to_stub(0);
  auto fn = reinterpret_cast<int (*)(int)>(pc);
  for (int i = 0; i < 1000; i++) ASSERT_EQ((i + 1) ^ 3, fn(i));
  EXPECT_EQ(1000u, pages.stub_word(kCounterCountOffset));
  // Entering at the moved copy runs the instructions without counting.
  auto uncounted = reinterpret_cast<int (*)(int)>(stub->run);
  EXPECT_EQ((41 + 1) ^ 3, uncounted(41));
  EXPECT_EQ(1000u, pages.stub_word(kCounterCountOffset));
}

TEST(CountingPatch, MovesADirectCall) {
  testing::CodePages pages;
  ASSERT_TRUE(pages.ok());
  uint8_t* code = pages.code();
  const uint64_t pc = pages.base(), page = pages.stub();
  // f: call g; add eax, 1; ret.  g (at pc + 64): lea eax, [rdi + 7]; ret.  f(x) = x + 8
  std::vector<uint8_t> f = {0xe8, 59, 0, 0, 0, 0x83, 0xc0, 0x01, 0xc3};
  std::memcpy(code, f.data(), f.size());
  const uint8_t g[] = {0x8d, 0x47, 0x07, 0xc3};
  std::memcpy(code + 64, g, sizeof g);
  auto stub = build_counter_stub(padded(f), pc, page);
  ASSERT_TRUE(stub.ok()) << stub.error().message;
  EXPECT_EQ(5u, stub->displaced);
  pages.place_stub(stub->bytes);
  pages.jump_to_stub(0);
  auto fn = reinterpret_cast<int (*)(int)>(pc);
  for (int i = 0; i < 100; i++) ASSERT_EQ(i + 8, fn(i));
  EXPECT_EQ(100u, pages.stub_word(kCounterCountOffset));
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
  CodePages pages;
  ASSERT_TRUE(pages.ok());
  uint8_t* code = pages.code();
  const uint64_t fn = pages.base(), pc = fn + kFlagsFnPc, page = pages.stub();
  std::memcpy(code, kFlagsFn.data(), kFlagsFn.size());
  auto stub = build_counter_stub(padded(std::vector<uint8_t>(code + kFlagsFnPc, code + kFlagsFn.size())), pc, page);
  ASSERT_TRUE(stub.ok()) << stub.error().message;
  EXPECT_EQ(kFlagsFnMoved, stub->displaced);
  pages.place_stub(stub->bytes);
  const uint64_t limit = 7;
  std::memcpy(reinterpret_cast<void*>(page + kCounterLimitOffset), &limit, 8);
  g_count = reinterpret_cast<const volatile uint64_t*>(page + kCounterCountOffset);
  pages.jump_to_stub(kFlagsFnPc);
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
}

// A stub over several short instructions (a loop of 1-4 byte ones): a
// thread a watch stops among their copies stands at the program's address
// of the copy it is at, before pc (an anchored site) and from pc on.
TEST(CountingPatch, ThreadsAmongSeveralMovedInstructionsStandAtTheirProgramAddresses) {
  // and %edi,%edx; mov %rax,(%rsi,%rdx,8); inc %rax; jne (back to the and)
  const std::vector<uint8_t> code = padded({0x21, 0xfa, 0x48, 0x89, 0x04, 0xd6, 0x48, 0xff, 0xc0, 0x75, 0xf5});
  const uint64_t at = 0x401000, page = 0x500000;
  const PatchSite from_pc = PatchSite::at(at, 6);  // the and and the store
  auto s = build_counter_stub(code, from_pc, page);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(counter_stub_program_pc(*s, code, from_pc, page, s->run), at);
  EXPECT_EQ(counter_stub_program_pc(*s, code, from_pc, page, s->run + 2), at + 2);  // the store's copy
  EXPECT_EQ(counter_stub_program_pc(*s, code, from_pc, page, s->run + 1), std::nullopt);  // inside the and
  EXPECT_EQ(counter_stub_program_pc(*s, code, from_pc, page, s->back), std::nullopt);  // site_end_at's
  EXPECT_EQ(counter_stub_program_pc(*s, code, from_pc, page, s->entry), std::nullopt);  // the count
  // Anchored: the and runs before the count, the store and the inc after it.
  const PatchSite anchored{at, at + 2, 9};
  auto a = build_counter_stub(code, anchored, page);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(counter_stub_program_pc(*a, code, anchored, page, page), at);
  EXPECT_EQ(counter_stub_program_pc(*a, code, anchored, page, a->run), at + 2);
  EXPECT_EQ(counter_stub_program_pc(*a, code, anchored, page, a->run + 4), at + 6);
  // At the count, after the moved and: at pc (the store), its arrival to come.
  // (A threaded reverse watch's landing met this in 1 of ~36 recordings of
  // thr_watch_counter: "a watched access inside a counter stub".)
  EXPECT_EQ(counter_stub_program_pc(*a, code, anchored, page, a->entry), at + 2);
}

TEST(CountingPatch, RefusesCodeItCannotMove) {
  EXPECT_FALSE(build_counter_stub(padded({0xff, 0xd0}), 0x401000, 0x500000).ok());  // call rax
  EXPECT_FALSE(build_counter_stub(padded({0x5d, 0xc3}), 0x401000, 0x500000).ok());        // pop rbp; ret
}

}  // namespace
}  // namespace slsdbg::replay
