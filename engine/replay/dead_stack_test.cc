#include "engine/replay/dead_stack.h"

#include <gtest/gtest.h>

#include <vector>

namespace slsdbg::replay {
namespace {

store::ProcessState with_stack(uint64_t start, uint64_t end) {
  store::ProcessState s;
  store::Mapping heap;
  heap.start = 0x1000;
  heap.end = 0x3000;
  s.mappings.push_back(heap);
  store::Mapping stack;
  stack.start = start;
  stack.end = end;
  stack.path = "[stack]";
  s.mappings.push_back(stack);
  return s;
}

TEST(DeadStack, RangeEndsAtTheRedZone) {
  const auto r = dead_stack_range(with_stack(0x7000, 0x9000), 0x8100);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->begin, 0x7000u);
  EXPECT_EQ(r->end, 0x8100u - kRedZoneBytes);
  EXPECT_FALSE(r->contains(0x8100 - kRedZoneBytes));  // the red zone is live
  EXPECT_TRUE(r->contains(0x8100 - kRedZoneBytes - 1));
}

TEST(DeadStack, NoRangeOutsideAnyMappingOrInsideTheRedZone) {
  EXPECT_FALSE(dead_stack_range(with_stack(0x7000, 0x9000), 0x9800).has_value());
  EXPECT_FALSE(dead_stack_range(with_stack(0x7000, 0x9000), 0x7040).has_value());
}

TEST(DeadStack, DifferencesBelowTheRedZoneAreRuns) {
  const AddressRange dead{0x7000, 0x7f80};
  std::vector<uint8_t> live(4096, 0), rec(4096, 0);
  live[0x10] = 1; live[0x11] = 2; live[0x40] = 3;
  const auto runs = dead_only_differences(0x7000, live, rec, dead);
  ASSERT_TRUE(runs.has_value());
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].addr, 0x7010u);
  EXPECT_EQ((*runs)[0].len, 2u);
  EXPECT_EQ((*runs)[1].addr, 0x7040u);
  EXPECT_EQ((*runs)[1].len, 1u);
}

TEST(DeadStack, ADifferenceInLiveStackIsReal) {
  const AddressRange dead{0x7000, 0x7f80};
  std::vector<uint8_t> live(4096, 0), rec(4096, 0);
  live[0x10] = 1;
  live[0xf90] = 1;  // inside the red zone
  EXPECT_FALSE(dead_only_differences(0x7000, live, rec, dead).has_value());
  EXPECT_FALSE(dead_only_differences(0x7000, live, rec, std::nullopt).has_value());
  live[0xf90] = 0;
  EXPECT_TRUE(dead_only_differences(0x7000, live, rec, dead).has_value());
}

TEST(DeadStack, EqualPagesNeedNothing) {
  std::vector<uint8_t> live(4096, 7), rec(4096, 7);
  const auto runs = dead_only_differences(0x7000, live, rec, std::nullopt);
  ASSERT_TRUE(runs.has_value());
  EXPECT_TRUE(runs->empty());
}

}  // namespace
}  // namespace slsdbg::replay
