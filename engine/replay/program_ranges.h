#pragma once
// The address ranges a recorded program maps at some moment of its
// recording: its mappings at checkpoint 0 and at the last checkpoint, and
// every logged mmap's and mremap's result. Replay's own pages in the
// replayed process (a counter stub's, which stays for a whole run) go
// outside them (trampoline_code.h, free_page_near): a page placed where
// the program maps later made its mmap fail (zstd -T2's 128 MiB arena
// reservation landed on a counter stub half a GiB below libc: EEXIST, a
// divergence).
#include <cstdint>
#include <utility>
#include <vector>

#include "store/recording.h"

namespace slsdbg::replay {

using AddressRanges = std::vector<std::pair<uint64_t, uint64_t>>;  // [start, end), sorted, merged

AddressRanges recorded_program_ranges(const store::RecordingReader& reader);

// While one lives, free_page_near avoids `reader`'s program ranges
// (computed at the first placement). The Timelines hold one.
class ProgramRangesScope {
 public:
  explicit ProgramRangesScope(const store::RecordingReader& reader);
  ~ProgramRangesScope();
  ProgramRangesScope(const ProgramRangesScope&) = delete;
  ProgramRangesScope& operator=(const ProgramRangesScope&) = delete;

 private:
  uint64_t id_;
};

// The ranges of the scope alive now (empty without one).
AddressRanges current_program_ranges();

}  // namespace slsdbg::replay
