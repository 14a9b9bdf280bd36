#include "process/debug_regs.h"

#include <sys/ptrace.h>
#include <sys/user.h>

#include <cerrno>
#include <cstddef>
#include <string>

namespace slsdbg::process {

namespace {

size_t dr_offset(int i) { return offsetof(struct user, u_debugreg) + static_cast<size_t>(i) * sizeof(unsigned long); }

std::string what(const char* request, pid_t tid, int i) {
  return std::string("ptrace(") + request + ", DR" + std::to_string(i) + ") of thread " + std::to_string(tid);
}

}  // namespace

Result<unsigned long> read_debug_register(pid_t tid, int i) {
  errno = 0;  // PEEKUSER returns the value: only errno tells a failure
  const long v = ptrace(PTRACE_PEEKUSER, tid, dr_offset(i), 0);
  if (errno != 0) return Error::from_errno(what("PTRACE_PEEKUSER", tid, i));
  return static_cast<unsigned long>(v);
}

Status write_debug_register(pid_t tid, int i, unsigned long value) {
  if (ptrace(PTRACE_POKEUSER, tid, dr_offset(i), value) != 0) return Error::from_errno(what("PTRACE_POKEUSER", tid, i));
  return ok_status();
}

}  // namespace slsdbg::process
