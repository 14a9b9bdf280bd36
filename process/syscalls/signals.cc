// Signal syscalls: handlers, masks, alternate stacks, pending sets.
#include <signal.h>
#include <sys/syscall.h>

#include "process/syscalls/model.h"

namespace slsdbg::process {

namespace {

constexpr uint64_t kKernelSigactionSize = 32;  // handler, flags, restorer, mask

SyscallClass rt_sigaction_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (succeeded(c)) add_region(out, c.args[2], kKernelSigactionSize);
  return SyscallClass::Modelled;
}

SyscallClass rt_sigprocmask_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (succeeded(c)) add_region(out, c.args[2], c.args[3]);
  return SyscallClass::Modelled;
}

SyscallClass sigaltstack_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (succeeded(c)) add_region(out, c.args[1], sizeof(stack_t));
  return SyscallClass::Modelled;
}

SyscallClass rt_sigpending_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (succeeded(c)) add_region(out, c.args[0], c.args[1]);
  return SyscallClass::Modelled;
}

SyscallClass rt_sigtimedwait_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (c.result > 0) add_region(out, c.args[1], sizeof(siginfo_t));
  return SyscallClass::Modelled;
}

}  // namespace

void register_signal_models(std::vector<ModelEntry>& out) {
  out.insert(out.end(), {
      {SYS_rt_sigaction, {"rt_sigaction", rt_sigaction_model}},
      {SYS_rt_sigprocmask, {"rt_sigprocmask", rt_sigprocmask_model}},
      {SYS_sigaltstack, {"sigaltstack", sigaltstack_model}},
      {SYS_rt_sigpending, {"rt_sigpending", rt_sigpending_model}},
      {SYS_rt_sigtimedwait, {"rt_sigtimedwait", rt_sigtimedwait_model}},
      {SYS_rt_sigsuspend, {"rt_sigsuspend", no_outputs}},
      {SYS_pause, {"pause", no_outputs}},
      // Restores registers from the signal frame in tracee memory: replay
      // re-executes it deterministically.
      {SYS_rt_sigreturn, {"rt_sigreturn", no_outputs}},
      {SYS_restart_syscall, {"restart_syscall", no_outputs}},
      {SYS_signalfd4, {"signalfd4", no_outputs}},
  });
}

}  // namespace slsdbg::process
