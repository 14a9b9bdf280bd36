#include "process/queued_signals.h"

#include <signal.h>
#include <sys/ptrace.h>

#include <string>

namespace slsdbg::process {

Result<uint64_t> queued_signals(pid_t tid, SignalQueue queue) {
  // Real-time signals may be queued many times each: page through them.
  constexpr int kBatch = 32;
  siginfo_t infos[kBatch];
  uint64_t bits = 0;
  for (uint64_t off = 0;; off += kBatch) {
    __ptrace_peeksiginfo_args args{};
    args.off = off;
    args.flags = queue == SignalQueue::Shared ? PTRACE_PEEKSIGINFO_SHARED : 0;
    args.nr = kBatch;
    const long n = ptrace(PTRACE_PEEKSIGINFO, tid, &args, infos);
    if (n < 0) return Error::from_errno("ptrace(PEEKSIGINFO, " + std::to_string(tid) + ")");
    for (long i = 0; i < n; ++i)
      if (infos[i].si_signo >= 1 && infos[i].si_signo <= 64) bits |= 1ull << (infos[i].si_signo - 1);
    if (n < kBatch) return bits;
  }
}

Result<uint64_t> unblocked_queued_signals(pid_t tid, bool shared) {
  uint64_t pending = TRY(queued_signals(tid, SignalQueue::Thread));
  if (shared) pending |= TRY(queued_signals(tid, SignalQueue::Shared));
  if (!pending) return pending;
  uint64_t blocked = 0;
  if (ptrace(PTRACE_GETSIGMASK, tid, sizeof blocked, &blocked) != 0)
    return Error::from_errno("ptrace(GETSIGMASK, " + std::to_string(tid) + ")");
  return pending & ~blocked;
}

}  // namespace slsdbg::process
