// Compares a restored, ptrace-stopped process with the checkpoint it was
// restored from: registers (GPRs incl. fs/gs base, XSAVE), the memory map
// (every recorded range present with its protection, sharing and file, nothing
// else but the injection area), every readable page's contents, and the
// descriptors restore makes (compare_descriptors). Used by
// the tests and by `slsdbg restore --verify`. The first difference is an error
// naming it.
#pragma once

#include "common/ids.h"
#include "common/result.h"
#include "engine/restore/restore.h"
#include "process/task.h"
#include "store/recording.h"

namespace slsdbg::restore {

struct CompareStats {
  uint64_t pages_compared = 0;
  uint64_t mappings_compared = 0;
  uint64_t descriptors_compared = 0;
};

// `threads`: the other threads restore created (restore.h), compared with
// the checkpoint's threads[1..] (registers, signal mask); null compares the
// leader only.
Result<CompareStats> compare_with_checkpoint(process::Task& task, const store::RecordingReader& reader, CheckpointId k,
                                             std::vector<RestoredThread>* threads = nullptr);

// The live fd table of `pid` against a checkpoint's (`slsdbg restore`'s
// numbering, fds 0-2 aside): files at their paths and offsets; pipes and
// socketpairs as the same objects with the same waiting bytes; eventfds,
// timerfds, signalfds and epolls with their state; flags and
// close-on-exec. Descriptors restore warned about are not there and not
// compared. The number compared, or the first difference.
Result<uint64_t> compare_descriptors(pid_t pid, const std::vector<store::FdEntry>& recorded);

}  // namespace slsdbg::restore
