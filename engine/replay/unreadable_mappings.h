// A core or state taken at a replayed moment lists the mappings the
// process had, but pages of a mapping the segment unmapped (or never
// faulted in from a file that is gone) cannot be read back. Such a mapping
// goes in without contents rather than failing the whole core.
#pragma once

#include <sys/mman.h>

#include <cstdint>
#include <span>
#include <vector>

#include "common/result.h"
#include "store/process_state.h"

namespace slsdbg::replay {

// Clears PROT_READ on every readable mapping whose first byte `source`
// (a Timeline or a ThreadedTimeline) cannot read.
template <class MemorySource>
void mark_unreadable_mappings(std::vector<store::Mapping>& mappings, MemorySource& source) {
  for (store::Mapping& m : mappings) {
    if (!(m.prot & PROT_READ)) continue;
    uint8_t probe = 0;
    Result<size_t> r = source.read_memory(m.start, std::span(&probe, 1));
    if (!r.ok() || *r == 0) m.prot &= ~PROT_READ;
  }
}

}  // namespace slsdbg::replay
