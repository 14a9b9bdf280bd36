// Checks the predictions a counting copy stops by, on sampled values of the
// loop shapes they were written for: a counter moving by a constant step, an
// interpreter's value stepping once every 3 visits, an inner loop's counter
// restarting every run (its length from the phase points), and a position
// moving one way by data-dependent steps (a bracket around the target).
#include "engine/replay/visit_prediction.h"

#include <gtest/gtest.h>

#include <vector>

namespace slsdbg::replay {
namespace {

// Consecutive samples of one value: f(visit) for visits base, base + 1, ...
std::vector<std::vector<uint64_t>> samples_of(uint64_t base, size_t n, uint64_t (*f)(uint64_t)) {
  std::vector<std::vector<uint64_t>> s;
  for (size_t i = 0; i < n; i++) s.push_back({f(base + i)});
  return s;
}

TEST(VisitPrediction, ConstantStep) {
  std::set<uint64_t> out;
  std::map<size_t, std::set<uint64_t>> phases;
  auto counter = [](uint64_t v) { return 1000 + 7 * v; };
  predict(samples_of(1, 3, counter), {1000 + 7 * 5000}, 1, out, phases);
  EXPECT_EQ(out, std::set<uint64_t>{5000});
  EXPECT_EQ(phases[0], std::set<uint64_t>{5000});
}

TEST(VisitPrediction, PeriodOfThree) {
  std::set<uint64_t> out;
  std::map<size_t, std::set<uint64_t>> phases;
  auto dispatch = [](uint64_t v) { return 10 * (v / 3); };  // steps once every 3 visits
  predict(samples_of(1, 25, dispatch), {10 * (900 / 3)}, 1, out, phases);
  EXPECT_TRUE(out.count(900)) << "visit 900 has the target value";
  EXPECT_TRUE(phases.empty()) << "phase points are for steps at every visit";
}

TEST(VisitPrediction, InnerLoopLength) {
  // A counter restarting every 1000 visits; the target value 400 comes at
  // visits 401, 1401, 2401, ...: samples in three runs, past and ahead.
  auto inner = [](uint64_t v) { return (v - 1) % 1000; };
  std::set<uint64_t> out;
  std::map<size_t, std::set<uint64_t>> phases;
  for (uint64_t base : {10, 1700, 2100}) predict(samples_of(base, 3, inner), {400}, base, out, phases);
  const LoopRuns runs = loop_runs(phases, 50);
  EXPECT_EQ(runs.length, 1000u);
  EXPECT_EQ(runs.first, 401u);
  EXPECT_EQ(runs.shortest, 1000u);
  // Two runs seen: no length yet.
  phases.clear();
  for (uint64_t base : {10, 1700}) predict(samples_of(base, 3, inner), {400}, base, out, phases);
  EXPECT_EQ(loop_runs(phases, 50).length, 0u);
}

uint64_t position(uint64_t v) { return 3 * v + (v * 2654435761u >> 7) % 3; }  // rises 1 to 5 a visit

TEST(VisitPrediction, OneWayValueBrackets) {
  std::vector<Monotone> seen;
  const std::vector<uint64_t> target{position(7000)};
  uint64_t lo = 0;
  std::optional<Bracket> b;
  for (uint64_t base = 1; base < 100000 && !b; base += 1000) {
    b = monotone_bracket(samples_of(base, 3, position), target, base, seen);
    if (!b) lo = base + 2;
  }
  ASSERT_TRUE(b);
  EXPECT_EQ(b->lo, lo);
  EXPECT_GE(b->hi, 7000u);
  EXPECT_LT(b->lo, 7000u);
  EXPECT_TRUE(b->every_visit);
  EXPECT_TRUE(b->before(static_cast<int64_t>(position(6999))));
  EXPECT_FALSE(b->before(static_cast<int64_t>(position(7000))));
}

TEST(VisitPrediction, BracketToTheEnd) {
  // The loop ended (a system call) after visit 7500, before the next sample.
  std::vector<Monotone> seen;
  const std::vector<uint64_t> target{position(7000)};
  for (uint64_t base : {1, 1000, 3000, 6000}) EXPECT_FALSE(monotone_bracket(samples_of(base, 3, position), target, base, seen));
  const std::optional<Bracket> b = bracket_to_end(seen, target, 7500);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->lo, 6002u);
  EXPECT_EQ(b->hi, 7501u);
  // A value that went back once is no bracket.
  auto back_and_forth = [](uint64_t v) { return v < 2000 ? v : 4000 - v; };
  std::vector<Monotone> other;
  for (uint64_t base : {1, 1000, 3000}) monotone_bracket(samples_of(base, 3, back_and_forth), {10}, base, other);
  EXPECT_FALSE(bracket_to_end(other, {10}, 7500));
}

}  // namespace
}  // namespace slsdbg::replay
