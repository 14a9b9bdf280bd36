// An invariant: says whether the recorded program is "good" at one point of
// its history. Three kinds (--expr, --plugin, --cmd) implement it; the search
// and the refinement know only this interface.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/bisect/state_view.h"

namespace slsdbg::bisect {

enum class Verdict { Good, Bad };

struct Evaluation {
  Verdict verdict = Verdict::Good;
  std::string detail;  // what the invariant saw or said (one line; may be empty)
};

struct MemoryRange {
  uint64_t addr = 0;
  uint64_t len = 0;
  std::string name;  // the global it is, when known
  bool operator==(const MemoryRange&) const = default;
};

// What refinement may watch: the memory the verdict depends on, or why that
// is unknown (then refinement cannot run and the answer stays at checkpoint
// granularity, labelled so).
struct WatchSet {
  std::vector<MemoryRange> ranges;
  std::string unknown_because;  // "" when `ranges` is complete
};

class Invariant {
 public:
  virtual ~Invariant() = default;
  // "--expr 'bank.total == 2000'", for reports.
  virtual std::string describe() const = 0;
  // An error means "cannot tell" (bad expression, plugin error, command not
  // runnable): bisect stops with it.
  virtual Result<Evaluation> evaluate(const StateView& at) = 0;
  // The memory the evaluations so far depended on, as of `at`.
  virtual WatchSet watch_set(const StateView& at) = 0;
};

}  // namespace slsdbg::bisect
