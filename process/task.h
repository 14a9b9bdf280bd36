// One thread under ptrace (PTRACE_SEIZE'd): registers, memory, resumption and
// decoded wait statuses (wait_status.h). Knows nothing of recording; recorder/ and engine/
// build on it.
#pragma once

#include <sys/ptrace.h>  // glibc's: __ptrace_syscall_info, PTRACE_EVENT_*
#include <signal.h>
#include <sys/types.h>
#include <sys/user.h>

#include <cstdint>
#include <span>
#include <vector>

#include "common/fd.h"
#include "common/ids.h"
#include "common/result.h"
#include "process/wait_status.h"

namespace slsdbg::process {

// How a resumption treats system calls.
enum class Resume { Continue, Syscall, SingleStep };

class Task {
 public:
  // `tid` must already be ptrace-seized by this process (spawn_traced, or a
  // thread auto-attached through PTRACE_O_TRACECLONE).
  Task(Tid tid, pid_t tgid);
  // A moved-from Task names no thread (tid 0, not stopped).
  Task(Task&& other) noexcept;
  Task& operator=(Task&& other) noexcept;
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;

  Tid tid() const { return tid_; }
  pid_t tgid() const { return tgid_; }
  int raw_tid() const { return tid_.value; }

  Result<user_regs_struct> regs();
  Status set_regs(const user_regs_struct& regs);
  Result<user_fpregs_struct> fpregs();
  Status set_fpregs(const user_fpregs_struct& fpregs);
  // The full XSAVE area (PTRACE_GETREGSET NT_X86_XSTATE), its size as the CPU reports it.
  Result<std::vector<uint8_t>> xsave();
  Status set_xsave(std::span<const uint8_t> area);
  Result<uint64_t> signal_mask();
  Status set_signal_mask(uint64_t mask);

  // process_vm_readv; falls back to /proc/PID/mem for pages it cannot read.
  Status read_memory(RemoteAddr addr, std::span<uint8_t> out);
  // /proc/PID/mem (FOLL_FORCE: works on read-only and r-x pages).
  Status write_memory(RemoteAddr addr, std::span<const uint8_t> data);

  Status resume(Resume how, int signo = 0);
  Status cont(int signo = 0) { return resume(Resume::Continue, signo); }
  Status syscall(int signo = 0) { return resume(Resume::Syscall, signo); }
  Status singlestep(int signo = 0) { return resume(Resume::SingleStep, signo); }
  Status interrupt();
  // Blocks until this thread changes state. Remembers the stop (last_stop()).
  // After a PTRACE_EVENT_EXEC stop the address space is new: the memory fd is
  // reopened and the injection page is gone. A user's interrupt may cut a
  // long wait (wait_cut.h): an error with errno EINTR, the thread stopped.
  Result<WaitResult> wait();
  // The latest state wait() returned (Task starts as "PtraceEvent exec" when
  // made by spawn_traced).
  const WaitResult& last_stop() const { return last_stop_; }
  void set_last_stop(const WaitResult& w) { last_stop_ = w; }

  // The kind of stop the thread is in, as the kernel sees it (syscall info +
  // siginfo), independent of who called waitpid. An error (ESRCH) when the
  // thread is not in a ptrace stop.
  Result<WaitResult> query_stop();

  Result<__ptrace_syscall_info> syscall_info();
  Result<siginfo_t> siginfo();
  Status set_siginfo(const siginfo_t& info);
  Result<unsigned long> event_message();

  // SIGKILL and reap; for owners that are done with the tracee.
  void kill_and_reap();

  // Address-space facts the injector keeps per task (reset on exec).
  bool has_injection_page() const { return injection_page_; }
  void set_has_injection_page(bool present) { injection_page_ = present; }
  // After an execve: the /proc/PID/mem descriptor and the injection page
  // belonged to the old address space.
  void forget_address_space() {
    mem_.reset();
    injection_page_ = false;
  }

 private:
  Result<int> mem_fd();

  Tid tid_;
  pid_t tgid_ = 0;
  UniqueFd mem_;
  WaitResult last_stop_{};
  Resume last_resume_ = Resume::Continue;  // again after a late interrupt's stop (wait_cut.h)
  bool injection_page_ = false;
};

}  // namespace slsdbg::process
