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

// Memory that belongs in the checkpoint image. Not: the kernel's data special
// mappings ([vvar], [vvar_vclock], [vsyscall]: the kernel rewrites them all
// the time, they are not readable through process_vm_readv, and a restored
// process gets its own). [vdso] code IS captured: the recorder patches it
// (time functions -> real syscalls), and dumps and restores need those bytes.
// and slsdbg's injection pages and staging area (restore re-creates the
// former; the latter is the recorder's scratch memory).
bool capturable(const store::Mapping& m);

}  // namespace slsdbg::recorder
