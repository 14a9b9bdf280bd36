// The state of one stopped thread: GPRs (incl. fs/gs base), FXSAVE, XSAVE,
// signal mask, its thread-directed pending signals and robust futex list.
#pragma once

#include "common/result.h"
#include "process/task.h"
#include "store/process_state.h"

namespace slsdbg::recorder {

// `shared_pending`, if given, receives the process-directed pending set
// (asked of one thread only: the set is the process's).
Result<store::ThreadState> capture_thread(process::Task& thread, uint64_t* shared_pending = nullptr);

}  // namespace slsdbg::recorder
