#include "recorder/capture/write_history.h"

#include <gtest/gtest.h>

namespace slsdbg::recorder {
namespace {

std::vector<uint64_t> pages(uint64_t first, uint64_t n) {
  std::vector<uint64_t> v;
  for (uint64_t i = 0; i < n; i++) v.push_back((first + i) * 4096);
  return v;
}

// sort's merge passes: each interval writes the next stretch of one table,
// so consecutive intervals share nothing, but a pass later the same pages
// come round again within the history.
TEST(WriteHistory, ASweepRepeatsWithinTheHistoryNotTheLastInterval) {
  WriteHistory h;
  for (uint64_t k = 0; k < 3; k++) h.push(pages(k * 100, 100));  // one pass over 300 pages
  EXPECT_TRUE(h.also_written(pages(300, 100)).empty());           // fresh pages
  EXPECT_EQ(h.also_written(pages(0, 100)).size(), 100u);          // the next pass starts again
  EXPECT_EQ(h.newest(), pages(200, 100));
}

TEST(WriteHistory, ForgetsSetsOlderThanItsDepth) {
  WriteHistory h;
  h.push(pages(0, 10));
  for (size_t k = 1; k < WriteHistory::kDepth; k++) h.push(pages(1000 * k, 10));
  EXPECT_EQ(h.also_written(pages(0, 10)).size(), 10u);
  h.push(pages(99999, 10));
  EXPECT_TRUE(h.also_written(pages(0, 10)).empty());
}

TEST(WriteHistory, NewestIsThePreviousInterval) {
  WriteHistory h;
  EXPECT_TRUE(h.newest().empty());
  h.push(pages(0, 5));
  h.push(pages(10, 5));
  EXPECT_EQ(h.newest(), pages(10, 5));
  const std::vector<uint64_t> mixed = {0, 4096 * 7, 4096 * 10};
  EXPECT_EQ(h.also_written(mixed), (std::vector<uint64_t>{0, 4096 * 10}));
}

}  // namespace
}  // namespace slsdbg::recorder
