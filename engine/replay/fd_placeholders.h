// Descriptor numbering in replay. An emulated call that created descriptors
// in the recording (a file opened for writing, pipe2, socket, eventfd, epoll,
// timerfd, signalfd, inotify, pidfd, accept ...) created none in replay; a
// placeholder (/dev/null) is put at each recorded number so the next real
// open, dup or memfd gets the number it got when recorded, and close runs
// for real on it.
#pragma once

#include <vector>

#include "common/result.h"
#include "process/task.h"
#include "store/event.h"

namespace slsdbg::replay {

// The descriptor numbers the recorded syscall `ev` created (empty when it
// failed or creates none). pipe/pipe2/socketpair: read from its logged
// output bytes.
std::vector<int> created_fds(const store::Event& ev);

// Opens /dev/null in the stopped tracee at each of `fds` (close-on-exec),
// through the injection page; registers and stop kind are kept.
Status install_placeholders(process::Task& task, const std::vector<int>& fds);

// A read-only openat runs for real in replay (a later mmap needs the file),
// but the file may be gone (a temporary file the program, or another
// process of the recording, deleted) or may exist only now. At the call's
// exit with `replayed` != the logged result: a placeholder stands at the
// logged descriptor, or the descriptor the recording did not get is closed.
// The caller then imposes the logged result. False: not such a case.
Result<bool> settle_changed_open(process::Task& task, int64_t nr, int64_t replayed, const store::Event& ev);

}  // namespace slsdbg::replay
