// The stores a cut fast string made ahead of its rcx: differences inside
// the remaining destination that hold what the remaining iterations store
// are set aside; any other difference is real.
#include "engine/replay/rep_ahead.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace slsdbg::replay {
namespace {

constexpr uint64_t kPage = 0x7000;

TEST(RepAhead, MovsStoresAheadAreSetAsideOthersAreReal) {
  RepString movsb;  // rep movsb, upward
  user_regs_struct at{};
  at.rdi = kPage + 4033;   // next byte to copy, as in xz's memcpy
  at.rsi = 0x9000 + 4033;  // its source
  at.rcx = 7759;
  std::vector<uint8_t> source(4096);
  for (size_t i = 0; i < source.size(); i++) source[i] = static_cast<uint8_t>(i * 13 + 5);
  const ImageReader live_image = [&](uint64_t a, std::span<uint8_t> out) {
    if (a < 0x9000 || a + out.size() > 0x9000 + source.size()) return Status(Error::msg("unmapped"));
    std::memcpy(out.data(), source.data() + (a - 0x9000), out.size());
    return ok_status();
  };
  std::vector<uint8_t> live(4096, 0), recorded(4096, 0);
  for (size_t i = 4033; i < 4096; i++) recorded[i] = source[i];  // the CPU stored ahead
  auto runs = ahead_store_differences(kPage, live, recorded, movsb, at, live_image);
  ASSERT_TRUE(runs);
  ASSERT_EQ(1u, runs->size());
  EXPECT_EQ(kPage + 4033 + (source[4033] == 0 ? 1 : 0), (*runs)[0].addr);
  recorded[4090] ^= 0xff;  // not what the copy stores there
  EXPECT_FALSE(ahead_store_differences(kPage, live, recorded, movsb, at, live_image));
  recorded[4090] ^= 0xff;
  recorded[100] = 1;  // before rdi: copied already, a real difference
  EXPECT_FALSE(ahead_store_differences(kPage, live, recorded, movsb, at, live_image));
}

TEST(RepAhead, StosStoresRaxBytesAndOtherOpsHaveNoAhead) {
  RepString stosq;
  stosq.op = RepOp::Stos;
  stosq.element_size = 8;
  user_regs_struct at{};
  at.rdi = kPage + 1024;
  at.rcx = 16;  // 128 bytes left: up to kPage + 1152
  at.rax = 0x1122334455667788ull;
  std::vector<uint8_t> live(4096, 0), recorded(4096, 0);
  std::memcpy(&recorded[1024], &at.rax, 8);
  std::memcpy(&recorded[1032], &at.rax, 8);
  const ImageReader none = [](uint64_t, std::span<uint8_t>) { return Status(Error::msg("no source")); };
  auto runs = ahead_store_differences(kPage, live, recorded, stosq, at, none);
  ASSERT_TRUE(runs);
  ASSERT_EQ(1u, runs->size());
  EXPECT_EQ(16u, (*runs)[0].len);
  std::memcpy(&recorded[1152], &at.rax, 8);  // past the remaining count
  EXPECT_FALSE(ahead_store_differences(kPage, live, recorded, stosq, at, none));
  RepString cmps;
  cmps.op = RepOp::Cmps;
  EXPECT_FALSE(rep_remaining_destination(cmps, at));
  at.eflags = 0x400;  // DF: downward, elements at rdi, rdi - 8, ...
  auto down = rep_remaining_destination(stosq, at);
  ASSERT_TRUE(down);
  EXPECT_EQ(kPage + 1024 + 8 - 128, down->begin);
  EXPECT_EQ(kPage + 1024 + 8, down->end);
}

}  // namespace
}  // namespace slsdbg::replay
