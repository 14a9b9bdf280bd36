#include "recorder/capture/thread_capture.h"

#include "process/proc_signals.h"

namespace slsdbg::recorder {

Result<store::ThreadState> capture_thread(process::Task& thread, uint64_t* shared_pending) {
  store::ThreadState t;
  t.tid = thread.tid();
  t.regs = TRY(thread.regs());
  t.fpregs = TRY(thread.fpregs());
  t.xsave = TRY(thread.xsave());
  t.sigmask = TRY(thread.signal_mask());
  auto pending = TRY(process::read_pending_signals(thread.tgid(), thread.raw_tid()));
  t.sigpending = pending.thread_pending;
  if (shared_pending) *shared_pending = pending.shared_pending;
  return t;
}

}  // namespace slsdbg::recorder
