#include "engine/bisect/search.h"

#include <algorithm>
#include <map>
#include <optional>

namespace slsdbg::bisect {

size_t SearchResult::count(ProbeKind kind) const {
  return static_cast<size_t>(std::count_if(probes.begin(), probes.end(), [&](const ProbeRecord& p) { return p.kind == kind; }));
}

namespace {

// The unprobed position in [lo, hi] farthest from every probed position
// (ties: the earliest); none when all are probed.
std::optional<size_t> farthest_unprobed(size_t lo, size_t hi, const std::map<size_t, Verdict>& known) {
  std::optional<size_t> best;
  size_t best_distance = 0;
  for (size_t c = lo; c <= hi; c++) {
    if (known.count(c)) continue;
    size_t d = SIZE_MAX;
    auto next = known.lower_bound(c);
    if (next != known.end()) d = std::min(d, next->first - c);
    if (next != known.begin()) d = std::min(d, c - std::prev(next)->first);
    if (!best || d > best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace

Result<SearchResult> search_positions(size_t good, size_t bad, unsigned spot_checks, const ProbeFn& probe) {
  SearchResult r;
  std::map<size_t, Verdict> known;
  auto run = [&](size_t index, ProbeKind kind) -> Result<Verdict> {
    Evaluation e = TRY(probe(index, kind));
    r.probes.push_back({index, kind, e});
    known[index] = e.verdict;
    return e.verdict;
  };

  size_t lo = good, hi = bad;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (TRY(run(mid, ProbeKind::Search)) == Verdict::Good)
      lo = mid;
    else
      hi = mid;
  }
  r.last_good = lo;
  r.first_bad = hi;
  if (!known.count(lo) && TRY(run(lo, ProbeKind::Endpoint)) == Verdict::Bad) {
    r.outcome = Outcome::AlreadyBad;
    return r;
  }
  if (!known.count(hi) && TRY(run(hi, ProbeKind::Endpoint)) == Verdict::Good) {
    r.outcome = Outcome::NeverBad;
    return r;
  }

  r.outcome = Outcome::Found;
  for (unsigned i = 0; i < spot_checks; i++) {
    bool bad_side = i % 2 == 0;
    auto pick = bad_side ? farthest_unprobed(r.first_bad, bad, known) : farthest_unprobed(good, r.last_good, known);
    if (!pick) pick = bad_side ? farthest_unprobed(good, r.last_good, known) : farthest_unprobed(r.first_bad, bad, known);
    if (!pick) break;
    Verdict v = TRY(run(*pick, ProbeKind::SpotCheck));
    if (*pick > r.last_good && v == Verdict::Good) {
      r.outcome = Outcome::NotMonotone;
      r.witness_bad = r.first_bad;
      r.witness_good = *pick;
      break;
    }
    if (*pick < r.first_bad && v == Verdict::Bad) {
      r.outcome = Outcome::NotMonotone;
      r.witness_bad = *pick;
      r.witness_good = r.last_good;
      break;
    }
  }
  return r;
}

}  // namespace slsdbg::bisect
