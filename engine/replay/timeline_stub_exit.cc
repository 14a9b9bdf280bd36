// Interrupted moves and the syscall buffer's stub. A buffered call is
// logged at the stub's trapped `syscall` (recorder/record/syscallbuf.h),
// so "right after an event", where an interrupt leaves the user, may be
// inside the stub page: a debugger has no symbol and no unwind info there
// and would show a frame without a backtrace. The stub's way back to the
// program runs no syscall, so a few forward steps reach the program's code
// at the patched site's return address, an exact moment like any stepi.
#include "engine/replay/timeline_impl.h"
#include "process/syscallbuf_stub.h"

namespace slsdbg::replay {

namespace {

// The stub's return path is a few dozen instructions (syscallbuf_stub.cc).
constexpr int kMaxStubSteps = 256;

}  // namespace

Status Timeline::Impl::leave_sysbuf_stub(TimelineStop& st) {
  const process::SysbufStubLayout stub = process::sysbuf_stub_layout();
  if (!stub.contains(st.pc)) return ok_status();
  const bool was_interruptible = interruptible;
  interruptible = false;  // the interrupt that brought us here is still raised
  Status result = ok_status();
  for (int i = 0; i < kMaxStubSteps && stub.contains(pc_now()); i++) {
    Result<TimelineStop> s = forward(Motion::Step);
    if (!s.ok()) {
      result = s.take_error();
      break;
    }
    path.push(Leg{Motion::Step, 1, user});
    if (s->cause != StopCause::Step) break;  // the end of history, a signal: stay there
  }
  interruptible = was_interruptible;
  st.pc = pc_now();
  return result;
}

}  // namespace slsdbg::replay
