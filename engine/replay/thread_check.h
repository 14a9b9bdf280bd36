// `replay --check` of a recording made with `record --threads`.
//
// Each segment k is replayed from its own restore of checkpoint k (every
// thread created again, restore.h), one thread at a time as the recorder ran
// them: the thread the checkpoint names as running goes first; a
// ThreadSwitch event leaves the current thread at the seccomp stop of the
// call it gave way at (the call then counts as in the kernel, its result
// comes later in the log under its tid) and resumes the named one. An event
// of a thread that waits in a syscall is served to it where the log has it,
// without waiting for the running thread: a futex wait in replay is served
// from the log and never blocks. `exit` of a thread runs for real, so the
// kernel clears its tid word and wakes pthread_join as it did when recorded;
// the replay waits until the thread is gone before going on. At the log's
// end the running thread is brought to checkpoint k+1's registers (a
// conditional breakpoint, else a breakpoint on its pc), then every thread's
// registers and the pages k+1 lists as dirty are compared.
//
// Not the Timeline: GDB, `--goto` and reverse execution still refuse such
// recordings (threads are not kept across a boundary, and a fork of a
// threaded process would copy one thread only).
#pragma once

#include <functional>

#include "common/result.h"
#include "engine/replay/replay_check.h"
#include "store/recording.h"

namespace slsdbg::replay {

Result<CheckReport> check_threaded_recording(const store::RecordingReader& reader,
                                             const std::function<void(uint64_t, uint64_t)>& progress);

}  // namespace slsdbg::replay
