// Each thread's alternate signal stack (sigaltstack), for checkpoints:
// restore gives it back, so that an SA_ONSTACK handler (every Go handler)
// runs there after a restore as it did while recording. ptrace cannot read
// it, so it is tracked from the calls that change it: sigaltstack, a new
// thread (none), exec (none). A thread whose history was not seen (the
// first thread of a forked child) is asked once, by an injected call.
// Not tracked: SS_AUTODISARM's disarming while a handler runs.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <map>

#include "common/result.h"
#include "process/syscalls/model.h"
#include "process/task.h"

namespace slsdbg::recorder {

struct AltStack {
  uint64_t sp = 0;
  uint64_t size = 0;
  int32_t flags = 2;  // SS_DISABLE: none
};

class AltStacks {
 public:
  // A thread whose alternate stack is known to be none (the program's first
  // thread after its exec, a new thread).
  void none(pid_t tid) { known_[tid] = AltStack{}; }
  void forget(pid_t tid) { known_.erase(tid); }
  // After a finished call of `caller`: sigaltstack that set one, or a clone
  // that made a thread (CLONE_VM and CLONE_THREAD: the kernel gives it none).
  void note_call(pid_t caller, long nr, const std::array<uint64_t, 6>& args, int64_t result, const process::RemoteReader& mem);
  // All threads but `leader` are gone and it has none (execve).
  void note_exec(pid_t leader);
  // `task`'s alternate stack: tracked, or asked once (injected sigaltstack).
  Result<AltStack> of(process::Task& task);

 private:
  std::map<pid_t, AltStack> known_;
};

}  // namespace slsdbg::recorder
