// Every asynchronous signal in the log was held by the recorder and re-sent
// right after a checkpoint, so it was pending from the checkpoint on and its
// thread took it at its first stop. It is a leading event of the segment
// unless another thread's call, waiting in the kernel, returned first (a
// process-directed SIGCHLD the kernel handed to a thread waiting in futex,
// while the main thread waited in wait4). Restore queues only the leading
// ones, so the threaded replay queues such a later one itself before its
// thread first runs: its delivery stop then comes before the call that
// thread would issue again, as recorded (the logged siginfo is set there).
#pragma once

#include <cstddef>
#include <vector>

#include "common/ids.h"
#include "store/event.h"

namespace slsdbg::replay {

// Indices into `events` of the asynchronous signal that is the first event
// (ThreadSwitch events aside) of each thread in `threads`, when it is not
// one of the segment's leading signal events.
std::vector<size_t> signals_before_reissue(const std::vector<store::Event>& events, const std::vector<Tid>& threads);

}  // namespace slsdbg::replay
