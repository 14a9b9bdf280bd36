#include "engine/replay/xsave_noise.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace slsdbg::replay {
namespace {

constexpr uint64_t kBase = 0x7000;        // the images cover [kBase, kBase + 3 pages)
constexpr uint64_t kArea = kBase + 0x40;  // a signal frame's XSAVE area
constexpr uint32_t kSize = 2440;          // its xstate_size (x87, SSE, AVX, PKRU)

// A fixed layout like this machine's: AVX at 576 (256 bytes), PKRU at 2432 (8).
std::optional<ComponentPlace> layout(unsigned i) {
  if (i == 2) return ComponentPlace{576, 256};
  if (i == 9) return ComponentPlace{2432, 8};
  return std::nullopt;
}

struct Image {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(3 * 4096, 0xcc);  // stale stack garbage
  void put32(uint64_t a, uint32_t v) { std::memcpy(&bytes[a - kBase], &v, 4); }
  void put64(uint64_t a, uint64_t v) { std::memcpy(&bytes[a - kBase], &v, 8); }
  uint8_t& at(uint64_t a) { return bytes[a - kBase]; }
  ImageReader reader() const {
    return [this](uint64_t a, std::span<uint8_t> out) -> Status {
      if (a < kBase || a + out.size() > kBase + bytes.size()) return Error::msg("outside the image");
      std::memcpy(out.data(), &bytes[a - kBase], out.size());
      return ok_status();
    };
  }
};

// A frame as the kernel writes it: software bytes, header, XSTATE_BV `bv`.
Image frame(uint64_t bv) {
  Image im;
  im.put32(kArea + 464, 0x46505853);  // FP_XSTATE_MAGIC1
  im.put32(kArea + 468, kSize + 4);   // extended_size
  im.put64(kArea + 472, 0x207);       // xfeatures
  im.put32(kArea + 480, kSize);       // xstate_size
  for (uint64_t i = 512; i < 576; i++) im.at(kArea + i) = 0;
  im.put64(kArea + 512, bv);
  im.put32(kArea + kSize, 0x46505845);  // FP_XSTATE_MAGIC2
  return im;
}

std::optional<XsaveArea> explain(uint64_t addr, const Image& live, const Image& rec) {
  return xsave_area_explaining(addr, live.reader(), rec.reader(), layout);
}

TEST(XsaveNoise, ReservedLegacyBytesOfASignalFrameAreNoise) {
  Image live = frame(0x203), rec = frame(0x203);
  for (uint64_t i = 416; i < 464; i++) rec.at(kArea + i) = 0;  // the kernel zeroed the frame and retried
  const auto area = explain(kArea + 416, live, rec);
  ASSERT_TRUE(area.has_value());
  EXPECT_EQ(area->start, kArea);
  EXPECT_EQ(area->size, kSize);
}

TEST(XsaveNoise, WithoutTheKernelsMagicInBothImagesNothingIsNoise) {
  Image live = frame(0x203), rec = frame(0x203);
  rec.at(kArea + 420) = 0;
  live.put32(kArea + 464, 0);
  EXPECT_FALSE(explain(kArea + 420, live, rec).has_value());
  live = frame(0x203);
  live.put32(kArea + 480, kSize - 64);  // software bytes differ: not the same frame
  EXPECT_FALSE(explain(kArea + 420, live, rec).has_value());
}

TEST(XsaveNoise, SavedRegistersAreRealDifferences) {
  Image live = frame(0x203), rec = frame(0x203);
  rec.at(kArea + 200) = 0x11;  // XMM2, SSE in use in both
  EXPECT_FALSE(explain(kArea + 200, live, rec).has_value());
  rec = frame(0x203);
  rec.at(kArea + 24) = 0x11;  // MXCSR is always written
  EXPECT_FALSE(explain(kArea + 24, live, rec).has_value());
  rec = frame(0x203);
  rec.at(kArea + 2432) = 0x11;  // PKRU itself
  EXPECT_FALSE(explain(kArea + 2432, live, rec).has_value());
}

TEST(XsaveNoise, ARealDifferenceElsewhereInTheAreaIsNotHidden) {
  Image live = frame(0x203), rec = frame(0x203);
  rec.at(kArea + 420) = 0;
  rec.at(kArea + 300) = 0x11;  // XMM8: real
  EXPECT_FALSE(explain(kArea + 420, live, rec).has_value());
}

TEST(XsaveNoise, ComponentsInTheirInitialStateAndPaddingAreNoise) {
  Image live = frame(0x203), rec = frame(0x203);
  rec.at(kArea + 600) = 0;   // AVX, not in XSTATE_BV
  rec.at(kArea + 1000) = 0;  // padding between AVX and PKRU
  rec.at(kArea + 2436) = 0;  // PKRU's unwritten upper half
  EXPECT_TRUE(explain(kArea + 600, live, rec).has_value());
  Image avx_live = frame(0x207), avx_rec = frame(0x207);
  avx_rec.at(kArea + 600) = 0;  // AVX in use in both: real
  EXPECT_FALSE(explain(kArea + 600, avx_live, avx_rec).has_value());
  Image sse_off = frame(0x201);  // SSE in its initial state in the live image
  Image sse_on = frame(0x203);
  sse_on.at(kArea + 200) = 0x11;
  EXPECT_TRUE(explain(kArea + 200, sse_off, sse_on).has_value());
}

TEST(XsaveNoise, CompactedAreaDifferingOnlyInXinuseBits) {
  Image live, rec;
  for (Image* im : {&live, &rec})
    for (uint64_t i = 512; i < 576; i++) im->at(kArea + i) = 0;
  live.put64(kArea + 512, 0x6);
  rec.put64(kArea + 512, 0x4);
  live.put64(kArea + 520, (1ull << 63) | 0x6);
  rec.put64(kArea + 520, (1ull << 63) | 0x6);
  rec.at(kArea + 170) = 0;  // XMM written only where SSE was in use
  const auto area = explain(kArea + 170, live, rec);
  ASSERT_TRUE(area.has_value());
  EXPECT_EQ(area->size, kXsaveAreaBytes);
  rec.put64(kArea + 512, 0x4 | (1ull << 5));  // a difference outside x87/SSE/AVX: real
  EXPECT_FALSE(explain(kArea + 170, live, rec).has_value());
}

TEST(XsaveNoise, WritesFollowTheSavedFeatureBits) {
  EXPECT_TRUE(xsave_writes(0, 0x1, layout));
  EXPECT_FALSE(xsave_writes(0, 0x2, layout));
  EXPECT_TRUE(xsave_writes(24, 0x0, layout));
  EXPECT_FALSE(xsave_writes(420, 0x7, layout));
  EXPECT_TRUE(xsave_writes(470, 0x0, layout));
  EXPECT_TRUE(xsave_writes(700, 0x4, layout));
  EXPECT_FALSE(xsave_writes(700, 0x3, layout));
  EXPECT_FALSE(xsave_writes(2000, 0x207, layout));
  EXPECT_TRUE(xsave_writes(2435, 0x200, layout));
  EXPECT_FALSE(xsave_writes(2436, 0x200, layout));
}

}  // namespace
}  // namespace slsdbg::replay
