// The state of one stopped thread: GPRs (incl. fs/gs base), FXSAVE, XSAVE,
// signal mask and its thread-directed pending signals.
#pragma once

#include "common/result.h"
#include "recorder/process/task.h"
#include "store/process_state.h"

namespace slsdbg::recorder {

Result<store::ThreadState> capture_thread(process::Task& thread);

}  // namespace slsdbg::recorder
