// Compares a restored, ptrace-stopped process with the checkpoint it was
// restored from: registers (GPRs incl. fs/gs base, XSAVE), the memory map
// (every recorded range present with its protection, sharing and file, nothing
// else but the injection area), and every readable page's contents. Used by
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
};

// `threads`: the other threads restore created (restore.h), compared with
// the checkpoint's threads[1..] (registers, signal mask); null compares the
// leader only.
Result<CompareStats> compare_with_checkpoint(process::Task& task, const store::RecordingReader& reader, CheckpointId k,
                                             std::vector<RestoredThread>* threads = nullptr);

}  // namespace slsdbg::restore
