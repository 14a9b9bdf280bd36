// The binary search over positions 0..n-1 (checkpoints, in order), apart from
// how a position is probed. Position `good` is assumed good and `bad` bad
// without probing them; an endpoint is probed only when the boundary lands
// next to it, so a search over K checkpoints costs at most ceil(log2 K)
// probes when the answer is inside, one more when it is at an edge.
//
// Spot checks (after the search): probe N more positions, each the one
// farthest from every probed position on its side (alternating: bad side,
// good side), to notice an invariant that is not monotone. A search alone
// cannot notice it: every probe it makes is consistent by construction.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/bisect/invariant.h"

namespace slsdbg::bisect {

enum class ProbeKind { Search, Endpoint, SpotCheck };

struct ProbeRecord {
  size_t index = 0;
  ProbeKind kind = ProbeKind::Search;
  Evaluation evaluation;
};

enum class Outcome {
  Found,        // last_good + 1 == first_bad, both probed
  AlreadyBad,   // position `good` is bad
  NeverBad,     // position `bad` is good
  NotMonotone,  // Found, but a spot check contradicts it (see witness)
};

struct SearchResult {
  Outcome outcome = Outcome::Found;
  size_t last_good = 0;
  size_t first_bad = 0;
  // NotMonotone: a probed bad position before a probed good one.
  size_t witness_bad = 0, witness_good = 0;
  std::vector<ProbeRecord> probes;
  size_t count(ProbeKind kind) const;
};

using ProbeFn = std::function<Result<Evaluation>(size_t index, ProbeKind kind)>;

// good < bad required (the caller checks and says so).
Result<SearchResult> search_positions(size_t good, size_t bad, unsigned spot_checks, const ProbeFn& probe);

}  // namespace slsdbg::bisect
