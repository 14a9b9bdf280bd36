// Checks SignalPacing: a signal waits only while the program has had less
// CPU time since the last checkpoint than that checkpoint's stop took, and
// a checkpoint ends the wait.
#include "recorder/record/signal_pacing.h"

#include <gtest/gtest.h>

namespace slsdbg::recorder {
namespace {

TEST(SignalPacing, WaitsUntilTheProgramRanAsLongAsTheStop) {
  SignalPacing p;
  p.checkpoint_done(1'000'000, 5'000'000);  // at 1 ms of CPU, a 5 ms stop
  EXPECT_TRUE(p.wait(1'000'000));           // no instruction since
  EXPECT_TRUE(p.waiting());
  EXPECT_EQ(p.wait_ns(2'000'000), 4'000'000u);
  EXPECT_TRUE(p.wait(5'999'999));
  EXPECT_FALSE(p.wait(6'000'000));  // it ran as long as the stop: checkpoint now
  EXPECT_EQ(p.wait_ns(7'000'000), 0u);
  EXPECT_TRUE(p.waiting());         // the one held before still waits for it
  EXPECT_EQ(p.waited(), 1u);
  p.checkpoint_done(6'100'000, 5'000'000);
  EXPECT_FALSE(p.waiting());
  EXPECT_TRUE(p.wait(6'100'000));
  EXPECT_EQ(p.waited(), 2u);
}

TEST(SignalPacing, NeverWaitsWithoutTheProgramsCpuTime) {
  SignalPacing p;
  EXPECT_FALSE(p.wait(0));  // no checkpoint yet
  p.checkpoint_done(std::nullopt, 5'000'000);
  EXPECT_FALSE(p.wait(1));
  p.checkpoint_done(1'000'000, 5'000'000);
  EXPECT_FALSE(p.wait(std::nullopt));
  EXPECT_FALSE(p.wait(999'999));  // a clock that went back
  p.checkpoint_done(1'000'000, 0);  // a stop that took no time
  EXPECT_FALSE(p.wait(1'000'000));
  EXPECT_FALSE(p.waiting());
}

}  // namespace
}  // namespace slsdbg::recorder
