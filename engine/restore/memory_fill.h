// Writes recorded page contents into a mapped region of the restored process:
// reads the store in large chunks, skips pages that need no write (zero pages
// over fresh anonymous memory, pages equal to the mapped file), and writes the
// rest with process_vm_writev, up to 1024 contiguous runs per call.
#pragma once

#include <sys/types.h>

#include "common/ids.h"
#include "common/result.h"
#include "engine/restore/restore.h"
#include "engine/restore/restore_plan.h"
#include "store/recording.h"

namespace slsdbg::restore {

enum class FillOutcome { Done, SharedFileDiffers };

// `file_fd` is a host-side descriptor of the mapped file for the file
// policies, -1 otherwise. With `mem_fd` (/proc/PID/mem) pages are written
// whatever their protection; without it (-1) the region must be writable.
// VerifySharedFile writes nothing.
Result<FillOutcome> fill_mapping(const store::RecordingReader& reader, CheckpointId k, pid_t pid,
                                 const MappingStep& step, FillPolicy policy, int file_fd, int mem_fd,
                                 RestoreTimings& timings);

// True when the 4 KiB page at p is all zero.
bool is_zero_page(const uint8_t* p);

}  // namespace slsdbg::restore
