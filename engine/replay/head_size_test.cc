// When a threaded head is worth trying (head_size.h): only after an armed
// stretch ran slower than recorded, and not once heads keep missing (each
// miss reruns a segment: xz -T2's reverse-continue took twice as long
// with heads that went past its checkpoints).
#include "engine/replay/head_size.h"

#include <gtest/gtest.h>

namespace slsdbg::replay {
namespace {

TEST(HeadSize, ThreadedHeadsFollowTheArmedStretchAndTheirMisses) {
  EXPECT_FALSE(threaded_head_worthwhile()) << "no stretch measured yet";
  note_armed_stretch(0.7);  // replayed faster than recorded: the trampoline cost nothing
  EXPECT_FALSE(threaded_head_worthwhile());
  note_armed_stretch(2.2);  // a hot checkpoint pc
  EXPECT_TRUE(threaded_head_worthwhile());
  note_threaded_head(false);
  EXPECT_TRUE(threaded_head_worthwhile()) << "one miss is allowed";
  note_threaded_head(false);
  EXPECT_FALSE(threaded_head_worthwhile()) << "two misses and no hit";
  for (int i = 0; i < 4; i++) note_threaded_head(true);
  EXPECT_TRUE(threaded_head_worthwhile()) << "2 misses in 6";
}

TEST(HeadSize, AHeadIsSizedByTheLeastRatioAndTheHint) {
  EXPECT_EQ(head_ns_for(10'000'000), 0u) << "no ratio yet";
  note_ratio(2.0);
  EXPECT_EQ(head_ns_for(10'000'000), 6'000'000u) << "0.6 of the hint, the ratio capped at 1";
  note_ratio(0.5);
  EXPECT_EQ(head_ns_for(10'000'000), 3'000'000u);
  EXPECT_EQ(head_ns_for(3'000'000), 0u) << "below kMinHeadNs";
}

}  // namespace
}  // namespace slsdbg::replay
