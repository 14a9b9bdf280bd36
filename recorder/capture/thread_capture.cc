#include "recorder/capture/thread_capture.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "process/fxsave.h"
#include "process/queued_signals.h"

namespace slsdbg::recorder {

namespace {

// The tracer may read a tracee's robust list head (PTRACE_MODE_READ) with
// one plain syscall, exact even where the recorder did not see the thread's
// set_robust_list (attach, a forked child's first thread).
Status read_robust_list(pid_t tid, store::ThreadState& t) {
  void* head = nullptr;
  size_t len = 0;
  if (syscall(SYS_get_robust_list, tid, &head, &len) != 0) return Error::from_errno("get_robust_list", errno);
  t.robust_list_head = reinterpret_cast<uint64_t>(head);
  t.robust_list_len = head ? len : 0;
  return ok_status();
}

}  // namespace

// Four ptrace calls and one get_robust_list, no /proc file: this runs for
// every thread at every checkpoint, while the whole group is stopped.
Result<store::ThreadState> capture_thread(process::Task& thread, uint64_t* shared_pending) {
  store::ThreadState t;
  t.tid = thread.tid();
  t.regs = TRY(thread.regs());
  t.xsave = TRY(thread.xsave());
  t.fpregs = TRY(process::fpregs_from_xsave(t.xsave));
  t.sigmask = TRY(thread.signal_mask());
  t.sigpending = TRY(process::queued_signals(thread.raw_tid(), process::SignalQueue::Thread));
  TRY(read_robust_list(thread.raw_tid(), t));
  if (shared_pending) *shared_pending = TRY(process::queued_signals(thread.raw_tid(), process::SignalQueue::Shared));
  return t;
}

}  // namespace slsdbg::recorder
