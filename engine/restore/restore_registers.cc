// The thread's registers, last of all (injected syscalls clobber them). The
// extended state goes first (XSAVE includes the legacy FXSAVE area), then the
// general registers, which carry fs_base/gs_base. orig_rax is set to -1: the
// restored thread is not inside a syscall, so the kernel must not apply
// syscall-restart logic when it resumes (a checkpoint taken in a blocking
// syscall already points rip at the `syscall` instruction with rax = number).
#include "engine/restore/restore_steps.h"

namespace slsdbg::restore {

Status restore_registers(process::Task& task, const store::ThreadState& thread) {
  if (!thread.xsave.empty()) {
    TRY_CTX(task.set_xsave(thread.xsave), "restoring XSAVE state");
  } else {
    TRY_CTX(task.set_fpregs(thread.fpregs), "restoring FP registers");
  }
  user_regs_struct regs = thread.regs;
  regs.orig_rax = uint64_t(-1);
  TRY_CTX(task.set_regs(regs), "restoring registers");
  return ok_status();
}

}  // namespace slsdbg::restore
