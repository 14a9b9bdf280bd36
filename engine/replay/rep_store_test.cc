#include "engine/replay/rep_store.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace slsdbg::replay
