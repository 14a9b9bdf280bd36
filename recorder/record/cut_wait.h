// A wait the kernel ends with a bare EINTR when any stop interrupts it
// (epoll_wait, sigwait: process::eintr_wait_kind), cut by the recorder's
// own stop of a thread that was not running (a group checkpoint). Natively
// no signal came, so the program must not see EINTR: the thread is rewound
// before the call, as for a restart code, and goes back into it with the
// time it has left. The log keeps the program's call once, with its own
// timeout, and the program's registers hold its own values after it.
#pragma once

#include <sys/user.h>
#include <time.h>

#include <array>
#include <cstdint>
#include <optional>

#include "process/syscalls/model.h"

namespace slsdbg::recorder {

class CutWait {
 public:
  // At the call's seccomp stop, `args` as the thread passed them: a call
  // going back in after a cut gets the program's timeout back (what the
  // log keeps); any other call starts the clock of a new wait.
  void on_entry(long nr, std::array<uint64_t, 6>& args, uint64_t now_ns);

  // At its exit stop with `result`: whether this is a wait that our stop
  // cut and that goes back in (the caller has checked that no signal of
  // the program's own is pending). Then the caller rewinds it. `mem`
  // reads a timeout the call points at (sigtimedwait, epoll_pwait2).
  bool cut_at_exit(long nr, const std::array<uint64_t, 6>& args, int64_t result, const process::RemoteReader& mem);

  // The registers of the cut call's thread at any stop of its own call:
  // the program's timeout back in place (rewound for a checkpoint, or
  // returning). True when `r` changed.
  bool put_back(long nr, user_regs_struct& r) const;

  // Going back into the cut call (`r` rewound before it): the time left in
  // place of the timeout. An int of milliseconds is rounded up; a timeout
  // behind a pointer becomes a struct timespec the caller writes at
  // `write->addr`, in the thread's dead stack below its red zone (no live
  // frame holds it, and replay settles dead stack), and the register points
  // there. True when `r` changed.
  struct PointedTimeout {
    uint64_t addr = 0;
    timespec ts{};
  };
  bool shorten(user_regs_struct& r, uint64_t now_ns, std::optional<PointedTimeout>& write) const;

  // The call ended (or another began): nothing goes back in.
  void clear() { active_ = false; }
  bool active() const { return active_; }

 private:
  unsigned long long& timeout_register(user_regs_struct& r) const { return arg_ == 2 ? r.rdx : r.r10; }

  bool active_ = false;
  long nr_ = -1;
  int arg_ = 3;                // the timeout's argument: 3 (r10), or 2 (rdx) for rt_sigtimedwait
  bool pointed_ = false;       // a pointer to a struct timespec, not an int of milliseconds
  uint64_t timeout_arg_ = 0;   // the program's args[arg_]
  uint64_t started_ns_ = 0;    // CLOCK_MONOTONIC at the first entry
  int64_t deadline_ns_ = -1;   // -1: it waits forever
};

}  // namespace slsdbg::recorder
