// Checks which word the patched breakpoint learns to compare after a wrong
// visit (differing_word.h): the last real difference of the page, past a
// signal frame's XSAVE area whose differences are noise and past dead
// stack; none when only noise differs.
#include "engine/replay/differing_word.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace slsdbg::replay {
namespace {

constexpr uint64_t kBase = 0x7000;        // one page
constexpr uint64_t kArea = kBase + 0x40;  // a signal frame's XSAVE area
constexpr uint32_t kSize = 2440;          // x87, SSE, AVX, PKRU

std::optional<ComponentPlace> layout(unsigned i) {
  if (i == 2) return ComponentPlace{576, 256};
  if (i == 9) return ComponentPlace{2432, 8};
  return std::nullopt;
}

struct Page {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(4096, 0xcc);
  void put32(uint64_t a, uint32_t v) { std::memcpy(&bytes[a - kBase], &v, 4); }
  void put64(uint64_t a, uint64_t v) { std::memcpy(&bytes[a - kBase], &v, 8); }
  uint8_t& at(uint64_t a) { return bytes[a - kBase]; }
};

// A frame as the kernel writes it (xsave_noise_test.cc has the details).
Page frame() {
  Page p;
  p.put32(kArea + 464, 0x46505853);
  p.put32(kArea + 468, kSize + 4);
  p.put64(kArea + 472, 0x207);
  p.put32(kArea + 480, kSize);
  for (uint64_t i = 512; i < 576; i++) p.at(kArea + i) = 0;
  p.put64(kArea + 512, 0x203);
  p.put32(kArea + kSize, 0x46505845);
  return p;
}

const ImageReader kNothingOutside = [](uint64_t, std::span<uint8_t>) -> Status {
  return Error::msg("outside the page");
};

std::optional<MemCheck> word(const Page& live, const Page& rec, std::optional<AddressRange> dead = std::nullopt) {
  return real_differing_word(kBase, live.bytes, rec.bytes, dead, kNothingOutside, kNothingOutside, layout);
}

TEST(DifferingWord, NoiseInAnXsaveAreaIsSkippedForTheRealDifference) {
  Page live = frame(), rec = frame();
  for (uint64_t i = 416; i < 464; i++) rec.at(kArea + i) = 0;  // the kernel zeroed the frame and retried
  rec.put64(kBase + 3000, 0x1122334455667788);                  // the loop's variable
  auto m = word(live, rec);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(kBase + 3000, m->addr);  // not kArea + 416, the first differing byte
  EXPECT_EQ(0x1122334455667788u, m->value);
}

TEST(DifferingWord, AnArrayFilledUpwardGivesItsLastSlot) {
  Page live, rec;
  for (uint64_t slot = 0; slot < 20; slot++) rec.put64(kBase + 1024 + 8 * slot, 0x100 + slot);  // 20 appended
  for (uint64_t slot = 0; slot < 12; slot++) live.put64(kBase + 1024 + 8 * slot, 0x100 + slot);  // 12 so far
  auto m = word(live, rec);
  ASSERT_TRUE(m.has_value());
  // Slot 12 would be equal again at the next visit; slot 19 only at the target's.
  EXPECT_EQ(kBase + 1024 + 8 * 19, m->addr);
  EXPECT_EQ(0x100u + 19, m->value);
}

TEST(DifferingWord, OnlyNoiseGivesNone) {
  Page live = frame(), rec = frame();
  for (uint64_t i = 416; i < 464; i++) rec.at(kArea + i) = 0;
  rec.at(kBase + 8) = 1;  // in dead stack
  EXPECT_FALSE(word(live, rec, AddressRange{kBase, kBase + 16}).has_value());
}

TEST(DifferingWord, ARealDifferenceInsideTheAreaCountsIfTheWordHoldsNoNoise) {
  Page live = frame(), rec = frame();
  rec.at(kArea + 200) = 0x11;  // XMM2, SSE in use in both: real
  auto m = word(live, rec);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(kArea + 200, m->addr);
}

TEST(DifferingWord, AWordDiffersOnlyWhenReadableAndOther) {
  Page live = frame();
  live.put64(kBase + 3000, 7);
  const ImageReader reader = [&live](uint64_t a, std::span<uint8_t> out) -> Status {
    if (a < kBase || a + out.size() > kBase + 4096) return Error::msg("outside the page");
    std::memcpy(out.data(), &live.bytes[a - kBase], out.size());
    return ok_status();
  };
  EXPECT_FALSE(word_differs(MemCheck{kBase + 3000, 7}, reader));
  EXPECT_TRUE(word_differs(MemCheck{kBase + 3000, 8}, reader));
  EXPECT_FALSE(word_differs(MemCheck{kBase + 8192, 8}, reader));  // unreadable: the pages decide
}

}  // namespace
}  // namespace slsdbg::replay
