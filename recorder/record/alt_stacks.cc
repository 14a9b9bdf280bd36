#include "recorder/record/alt_stacks.h"

#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>

#include "process/signal_frame.h"

namespace slsdbg::recorder {

using process::RemoteReader;

namespace {

constexpr int32_t kOnStack = SS_ONSTACK;  // a state sigaltstack reports, not a setting

AltStack from(const stack_t& ss) {
  if (ss.ss_flags & SS_DISABLE) return AltStack{};
  return AltStack{reinterpret_cast<uint64_t>(ss.ss_sp), ss.ss_size, ss.ss_flags & ~kOnStack};
}

}  // namespace

void AltStacks::note_call(pid_t caller, long nr, const std::array<uint64_t, 6>& args, int64_t result,
                          const RemoteReader& mem) {
  if (nr == SYS_sigaltstack && result == 0 && args[0] != 0) {
    stack_t ss{};
    if (mem.read(args[0], &ss, sizeof ss).ok()) known_[caller] = from(ss);
    else known_.erase(caller);  // ask it next time
    return;
  }
  if ((nr == SYS_clone || nr == SYS_clone3) && result > 0) {
    uint64_t flags = args[0];
    if (nr == SYS_clone3 && !mem.read(args[0], &flags, sizeof flags).ok()) return;
    if ((flags & CLONE_VM) && (flags & CLONE_THREAD)) none(static_cast<pid_t>(result));
  }
}

void AltStacks::note_exec(pid_t leader) {
  known_.clear();
  none(leader);
}

Result<AltStack> AltStacks::of(process::Task& task) {
  const pid_t tid = task.tid().value;
  if (auto it = known_.find(tid); it != known_.end()) return it->second;
  const stack_t ss = TRY_CTX(process::read_alt_stack(task), "asking thread " + std::to_string(tid) + " for its sigaltstack");
  return known_[tid] = from(ss);
}

}  // namespace slsdbg::recorder
