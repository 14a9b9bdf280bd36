#include "process/detach.h"

#include <sys/ptrace.h>

#include <string>

namespace slsdbg::process {

Status detach_thread(Tid tid) {
  if (::ptrace(PTRACE_DETACH, tid.value, nullptr, nullptr) != 0)
    return Error::from_errno("ptrace(PTRACE_DETACH) of thread " + std::to_string(tid.value));
  return ok_status();
}

}  // namespace slsdbg::process
