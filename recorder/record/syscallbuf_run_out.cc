#include "recorder/record/syscallbuf_run_out.h"

#include <sys/ptrace.h>
#include <sys/wait.h>

#include "process/debug_regs.h"

namespace slsdbg::recorder {

namespace {

// DR7: local enable of DR0, DR1 and DR2 (bits 0, 2, 4); R/W and LEN bits
// zero: break on execution of the instruction at the address.
constexpr unsigned long kExecDr012 = 0x15;

}  // namespace

Result<bool> run_to_stub_exit(pid_t pid, const process::SysbufStubLayout& stub, std::deque<siginfo_t>& intercepted) {
  const uint64_t targets[3] = {stub.slow, stub.ret_wide, stub.ret_narrow};
  for (int i = 0; i < 3; i++)
    if (!process::write_debug_register(pid, i, targets[i]).ok()) return false;
  if (!process::write_debug_register(pid, 7, kExecDr012).ok()) return false;
  // Disabled on every way out: a breakpoint left armed would stop the
  // program at its next buffered call with a SIGTRAP of its own.
  struct Disarm {
    pid_t pid;
    ~Disarm() {
      (void)process::write_debug_register(pid, 7, 0);
      (void)process::write_debug_register(pid, 6, 0);
    }
  } disarm{pid};
  // The stub's way out is a few dozen instructions and no loop but the
  // `rep movsb`; each round here ends at a breakpoint, or at a signal or
  // an event stop that the next round resumes.
  for (int rounds = 0; rounds < 64; rounds++) {
    if (ptrace(PTRACE_CONT, pid, nullptr, nullptr) != 0) return Error::from_errno("ptrace(PTRACE_CONT) out of the stub");
    int status = 0;
    if (waitpid(pid, &status, __WALL) != pid) return Error::from_errno("waitpid");
    if (!WIFSTOPPED(status)) return Error::msg("the tracee ended while leaving the syscall buffer");
    if ((status >> 16) != 0) continue;  // an event stop: resumed by the next round
    if (WSTOPSIG(status) == SIGTRAP) {
      siginfo_t si{};
      // TRAP_HWBKPT: one of ours; any other SIGTRAP is the program's.
      if (ptrace(PTRACE_GETSIGINFO, pid, nullptr, &si) == 0 && si.si_code == TRAP_HWBKPT) return true;
      intercepted.push_back(si);
      continue;
    }
    siginfo_t si;
    if (ptrace(PTRACE_GETSIGINFO, pid, nullptr, &si) == 0) intercepted.push_back(si);
  }
  return Error::msg("the tracee did not leave the syscall buffer stub");
}

}  // namespace slsdbg::recorder
