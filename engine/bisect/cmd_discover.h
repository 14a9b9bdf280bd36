// --cmd refinement, first step: which memory a shell command's verdict
// depends on. What the command reads cannot be observed, so it is asked:
//   candidates: the 8-byte words that differ between the last good and the
//     first bad checkpoint (found in the first bad one's dirty pages) in the
//     program's writable data (its executable's writable mappings and the
//     anonymous mapping right after them: .data, .bss) and in [heap], program
//     data first, at most kMaxCandidates of them;
//   probes: the command judges the last good checkpoint's core with a subset
//     of those words replaced by their first-bad values, and when that is
//     bad, the first bad checkpoint's core with them replaced by their
//     last-good values (overlay_memory.h): a subset explains the flip when
//     the first is bad and the second good. subset_search.h picks the subsets
//     and ends with a 1-minimal one that explains it.
// Refinement (refine.h) then watches those words exactly as it watches the
// globals an --expr names. When no subset flips the verdict (it reads
// registers, the stack, memory elsewhere) or it needs more words than the
// replay can watch, the outcome says so and the answer stays at segment
// granularity.
#pragma once

#include <functional>
#include <string>

#include "engine/bisect/bisect.h"
#include "engine/bisect/exe_symbols.h"
#include "engine/bisect/invariant.h"
#include "store/recording.h"

namespace slsdbg::bisect {

constexpr size_t kMaxCandidates = 4096;

struct DiscoverInput {
  const store::RecordingReader* reader = nullptr;
  Invariant* invariant = nullptr;
  uint64_t last_good = 0, first_bad = 0;  // checkpoint ids, adjacent
  const store::ProcessState* last_good_state = nullptr;
  const ExeSymbols* symbols = nullptr;    // names the words; may be null
  size_t max_words = 2;                   // what the replay can watch
  std::function<void(const std::string&)> progress;
  std::function<bool()> interrupted;
};

struct DiscoverOutcome {
  WatchSet watch;    // the words found (8 bytes each), or why there are none
  Discovered info;   // for the report
};

// An error: a probe could not run (the command said "cannot tell", failed,
// was interrupted) or the store could not be read.
Result<DiscoverOutcome> discover_cmd_reads(const DiscoverInput& in);

}  // namespace slsdbg::bisect
