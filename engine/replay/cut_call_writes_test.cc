#include "engine/replay/cut_call_writes.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <time.h>

#include <vector>

namespace slsdbg::replay {
namespace {

TEST(CutCallWrites, PollWritesItsWholeArray) {
  const auto w = cut_call_writes(SYS_poll, {0x5000, 4, static_cast<uint64_t>(-1), 0, 0, 0});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].begin, 0x5000u);
  EXPECT_EQ(w[0].end, 0x5000u + 4 * 8);
}

TEST(CutCallWrites, SleepWritesTheTimeLeft) {
  const auto w = cut_call_writes(SYS_clock_nanosleep, {CLOCK_MONOTONIC, 0, 0x6000, 0x7000, 0, 0});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].begin, 0x7000u);
  EXPECT_EQ(w[0].end, 0x7000u + sizeof(struct timespec));
}

TEST(CutCallWrites, FutexAndReadWriteNothing) {
  EXPECT_TRUE(cut_call_writes(SYS_futex, {0x5000, 0x80, 0, 0, 0, 0}).empty());
  EXPECT_TRUE(cut_call_writes(SYS_read, {3, 0x5000, 100, 0, 0, 0}).empty());
  EXPECT_TRUE(cut_call_writes(SYS_poll, {0, 0, 0, 0, 0, 0}).empty());  // no array
}

TEST(CutCallWrites, OverlayTakesOnlyTheRangesBytes) {
  const std::vector<AddressRange> ranges{{0x1006, 0x1008}, {0x2000, 0x2010}};
  const ImageReader recorded = [](uint64_t a, std::span<uint8_t> out) -> Status {
    for (size_t i = 0; i < out.size(); i++) out[i] = static_cast<uint8_t>(0xa0 + (a + i - 0x1000));
    return ok_status();
  };
  std::vector<uint8_t> live(16, 0x11);
  overlay_recorded(ranges, recorded, 0x1000, live);
  for (size_t i = 0; i < live.size(); i++)
    EXPECT_EQ(live[i], i == 6 || i == 7 ? 0xa0 + i : 0x11) << "byte " << i;
}

TEST(CutCallWrites, OverlayLeavesWhatTheRecordingCannotServe) {
  const std::vector<AddressRange> ranges{{0x1000, 0x1004}};
  const ImageReader unreadable = [](uint64_t, std::span<uint8_t>) -> Status { return Error::msg("not recorded"); };
  std::vector<uint8_t> live(8, 0x22);
  overlay_recorded(ranges, unreadable, 0x1000, live);
  EXPECT_EQ(live, std::vector<uint8_t>(8, 0x22));
}

}  // namespace
}  // namespace slsdbg::replay
