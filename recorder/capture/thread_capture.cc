#include "recorder/capture/thread_capture.h"

#include "process/fxsave.h"
#include "process/queued_signals.h"

namespace slsdbg::recorder {

// Four ptrace calls, no /proc file: this runs for every thread at every
// checkpoint, while the whole group is stopped.
Result<store::ThreadState> capture_thread(process::Task& thread, uint64_t* shared_pending) {
  store::ThreadState t;
  t.tid = thread.tid();
  t.regs = TRY(thread.regs());
  t.xsave = TRY(thread.xsave());
  t.fpregs = TRY(process::fpregs_from_xsave(t.xsave));
  t.sigmask = TRY(thread.signal_mask());
  t.sigpending = TRY(process::queued_signals(thread.raw_tid(), process::SignalQueue::Thread));
  if (shared_pending) *shared_pending = TRY(process::queued_signals(thread.raw_tid(), process::SignalQueue::Shared));
  return t;
}

}  // namespace slsdbg::recorder
