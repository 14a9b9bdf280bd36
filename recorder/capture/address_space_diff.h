// What changed in a memory map between two reads of /proc/PID/maps, in page
// ranges: `added` ranges hold memory we have not seen (new mmap, brk growth,
// stack growth, a mapping replaced by another), `removed` ranges lost their
// old contents (munmap, brk shrink, replaced). mprotect is neither.
#pragma once

#include <vector>

#include "recorder/capture/dirty_tracker.h"
#include "store/process_state.h"

namespace slsdbg::recorder {

struct MapDiff {
  std::vector<PageRange> added;
  std::vector<PageRange> removed;
};

// Only capturable mappings count (see capturable()).
MapDiff diff_maps(const std::vector<store::Mapping>& before, const std::vector<store::Mapping>& after);

// Memory that belongs in the checkpoint image. Not: kernel special mappings
// ([vvar], [vsyscall], [vdso] ...: the kernel supplies them at every exec and
// [vvar] is not even readable through process_vm_readv; restore maps its own),
// and slsdbg's injection pages (restore re-creates them).
bool capturable(const store::Mapping& m);

}  // namespace slsdbg::recorder
