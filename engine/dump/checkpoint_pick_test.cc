// Checks checkpoint selection: --at finds ids (also after retention dropped
// the first ones) and names the valid range when out of it; --time takes the
// last checkpoint at or before the time; --last the newest; an empty
// recording is an error.
#include "engine/dump/checkpoint_pick.h"

#include <gtest/gtest.h>

namespace slsdbg::dump {
namespace {

std::vector<store::CheckpointInfo> chain(uint64_t first_id, size_t n) {
  std::vector<store::CheckpointInfo> out;
  for (size_t i = 0; i < n; i++) {
    store::CheckpointInfo c;
    c.id = CheckpointId(first_id + i);
    c.time_ns = (first_id + i) * 10'000'000;  // every 10 ms
    out.push_back(c);
  }
  return out;
}

TEST(CheckpointPick, AtFindsTheIdAndNamesTheRangeWhenMissing) {
  auto cps = chain(5, 10);  // ids 5..14
  auto r = pick_checkpoint(cps, {PickKind::At, 7, 0});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->id.value, 7u);
  auto bad = pick_checkpoint(cps, {PickKind::At, 15, 0});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "checkpoint 15 out of range (recording has checkpoints 5..14)");
  EXPECT_FALSE(pick_checkpoint(cps, {PickKind::At, 4, 0}).ok());
}

TEST(CheckpointPick, TimeTakesTheLastCheckpointAtOrBefore) {
  auto cps = chain(0, 10);
  auto r = pick_checkpoint(cps, {PickKind::Time, 0, 0.055});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->id.value, 5u);
  r = pick_checkpoint(cps, {PickKind::Time, 0, 100.0});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->id.value, 9u);
  auto late = chain(3, 2);  // first at 30 ms
  auto bad = pick_checkpoint(late, {PickKind::Time, 0, 0.01});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("no checkpoint at or before 0.010 s"), std::string::npos);
  EXPECT_FALSE(pick_checkpoint(cps, {PickKind::Time, 0, -1}).ok());
}

TEST(CheckpointPick, LastAndEmpty) {
  auto r = pick_checkpoint(chain(0, 3), {PickKind::Last, 0, 0});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->id.value, 2u);
  auto empty = pick_checkpoint({}, {PickKind::Last, 0, 0});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message, "recording has no complete checkpoint");
}

}  // namespace
}  // namespace slsdbg::dump
