// A writable MAP_SHARED mapping of a descriptor that replay holds only as a
// placeholder (/dev/null, fd_placeholders.h: the file was created or opened
// for writing, so its open was emulated) cannot map the recorded file; the
// call would fail where the recording's succeeded (multiprocessing's shared
// arena and sem_open's semaphore in /dev/shm). Such a call maps anonymous
// shared memory at the recorded place instead: the recorder logs what a new
// shared mapping holds beyond zeros as the call's memory writes
// (recorder/record/shared_turn.h), and its pages are in the next checkpoint.
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <cstdint>

#include "store/event.h"

namespace slsdbg::replay {

// At the seccomp stop of `tid`'s mmap `ev`: makes `r` ask for an anonymous
// mapping (the caller sets the registers, and puts r8 and r10 back after).
// False: not such a call; `r` is unchanged.
bool map_placeholder_anonymous(pid_t tid, int64_t nr, const store::Event& ev, user_regs_struct& r);

}  // namespace slsdbg::replay
