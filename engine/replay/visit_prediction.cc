#include "engine/replay/visit_prediction.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <type_traits>

namespace slsdbg::replay {

namespace {

// A word read as a V.
template <typename V>
V as(uint64_t w) {
  V v;
  std::memcpy(&v, &w, sizeof v);
  return v;
}

// The step from word a to word b: their bits' difference (wrapping, as
// unsigned), or the doubles' difference.
template <typename V>
V step(uint64_t a, uint64_t b) {
  if constexpr (std::is_floating_point_v<V>) return as<V>(b) - as<V>(a);
  else return static_cast<V>(b - a);
}

// A value that moves by the same step d every p visits (p = 1: a loop
// counter at a pc run once per iteration; p > 1: an interpreter's dispatch
// pc, run p times per iteration of the program's loop, mawk's shape) takes
// the target value at visits base + r + k*p. V: int64_t (the word's bits)
// or double (the word read as one: an interpreter's number, rec_memloop's
// `d = d + 1.0`, whose bits move linearly only within one power of two).
//
// `phase` (integers, p = 1): the visit, past or ahead, where the value is the
// target's in the run of the loop the samples lie in (an inner loop's
// counter restarts every outer iteration: rec_sigalrm).
template <typename V>
void periodic_visits(const std::vector<std::vector<uint64_t>>& samples, size_t j, uint64_t t, uint64_t base,
                     std::set<uint64_t>& out, std::optional<uint64_t>* phase = nullptr) {
  const size_t n = samples.size();
  const V want = as<V>(t);
  if constexpr (std::is_floating_point_v<V>) {
    if (!std::isfinite(want)) return;
    for (const auto& s : samples)
      if (!std::isfinite(as<V>(s[j]))) return;
  }
  for (size_t p = 1; p <= kMaxPeriod && 2 * p < n; p++) {
    const V d = step<V>(samples[0][j], samples[p][j]);
    if (d == 0) continue;
    bool steady = true;
    for (size_t i = 0; steady && i + p < n; i++) steady = step<V>(samples[i][j], samples[i + p][j]) == d;
    if (!steady) continue;
    for (size_t r = 0; r < p; r++) {
      uint64_t k = 0;
      if constexpr (std::is_floating_point_v<V>) {
        const V from = as<V>(samples[r][j]);
        const V steps = (want - from) / d;
        if (!(steps >= 0) || steps >= static_cast<V>(kMaxVisit) || steps != std::floor(steps) || from + steps * d != want)
          continue;
        k = static_cast<uint64_t>(steps);
      } else {
        const V dist = step<V>(samples[r][j], t);
        if (d == -1 && dist == std::numeric_limits<V>::min()) continue;  // the one quotient that overflows
        if (dist % d != 0) continue;
        if (phase && p == 1) {
          const V q = dist / d;
          const uint64_t at = base + r;
          if (q >= 0 && static_cast<uint64_t>(q) < kMaxVisit) *phase = at + static_cast<uint64_t>(q);
          const uint64_t back = q < 0 ? static_cast<uint64_t>(-(q + 1)) + 1 : 0;  // -q, with no overflow
          if (q < 0 && back < at) *phase = at - back;
        }
        if (dist / d < 0) continue;
        k = static_cast<uint64_t>(dist / d);
      }
      if (k >= kMaxVisit / p) continue;
      const uint64_t visit = base + r + k * p;
      if (visit >= base + n && visit < kMaxVisit) out.insert(visit);
    }
    return;  // the shortest period that fits
  }
}

int direction(int64_t a, int64_t b) { return a < b ? 1 : a > b ? -1 : 0; }

}  // namespace

void predict(const std::vector<std::vector<uint64_t>>& samples, const std::vector<uint64_t>& target, uint64_t base,
             std::set<uint64_t>& out, std::map<size_t, std::set<uint64_t>>& phases) {
  for (size_t j = 0; j < target.size(); j++) {
    std::optional<uint64_t> phase;
    periodic_visits<int64_t>(samples, j, target[j], base, out, &phase);
    periodic_visits<double>(samples, j, target[j], base, out);
    if (phase) phases[j].insert(*phase);
  }
}

LoopRuns loop_runs(const std::map<size_t, std::set<uint64_t>>& phases, uint64_t min_length) {
  LoopRuns best;
  size_t seen = 0;
  for (const auto& [j, points] : phases) {
    uint64_t g = 0;
    for (auto a = points.begin(), b = std::next(a); b != points.end(); ++a, ++b) {
      g = std::gcd(g, *b - *a);
      if (*b - *a >= min_length && (!best.shortest || *b - *a < best.shortest)) best.shortest = *b - *a;
    }
    if (points.size() < 3 || g < min_length || (best.length && points.size() <= seen)) continue;  // the value seen most
    best.length = g;
    best.first = *points.begin() - (*points.begin() - 1) / g * g;
    seen = points.size();
  }
  return best;
}

std::optional<Bracket> monotone_bracket(const std::vector<std::vector<uint64_t>>& samples,
                                        const std::vector<uint64_t>& target, uint64_t base,
                                        std::vector<Monotone>& seen) {
  std::optional<Bracket> best;
  seen.resize(target.size());
  for (size_t j = 0; j < target.size(); j++) {
    Monotone& m = seen[j];
    if (m.broken) continue;
    if (m.visit >= base) m.visit = 0;  // the same run again, longer (a period's 25 samples after 3)
    int d = m.dir;
    bool one_way = true, every_visit = m.every_visit;
    uint32_t moves = m.moves;
    const auto step = [&](int64_t a, int64_t b) {
      const int s = direction(a, b);
      if (s && d && s != d) one_way = false;
      if (s) d = s;
      moves += s != 0;
      return s != 0;
    };
    const int64_t first = static_cast<int64_t>(samples[0][j]);
    if (m.visit) step(m.value, first);
    for (size_t i = 0; one_way && i + 1 < samples.size(); i++)
      if (!step(static_cast<int64_t>(samples[i][j]), static_cast<int64_t>(samples[i + 1][j]))) every_visit = false;
    if (!one_way) {
      m.broken = true;
      continue;
    }
    const Bracket b{j, m.visit, base, d, static_cast<int64_t>(target[j]), every_visit};
    // A value moving at every visit (the loop's own position) before one
    // that stays put between moves (a flag set once passes too).
    const auto better = [&] {
      if (!best || b.every_visit != best->every_visit) return !best || b.every_visit;
      return b.hi - b.lo < best->hi - best->lo;
    };
    if (d && moves >= kMinMoves && m.visit && b.before(m.value) && !b.before(first) && better()) best = b;
    m = {base + samples.size() - 1, static_cast<int64_t>(samples.back()[j]), d, false, every_visit, moves};
  }
  return best;
}

std::optional<Bracket> bracket_to_end(const std::vector<Monotone>& seen, const std::vector<uint64_t>& target,
                                      uint64_t end) {
  std::optional<Bracket> best;
  for (size_t j = 0; j < seen.size() && j < target.size(); j++) {
    const Monotone& m = seen[j];
    if (m.broken || !m.visit || !m.dir || m.moves < kMinMoves || m.visit >= end) continue;
    const Bracket b{j, m.visit, end + 1, m.dir, static_cast<int64_t>(target[j]), m.every_visit};
    if (!b.before(m.value)) continue;
    if (!best || (b.every_visit && !best->every_visit) ||
        (b.every_visit == best->every_visit && b.lo > best->lo))
      best = b;
  }
  return best;
}

}  // namespace slsdbg::replay
