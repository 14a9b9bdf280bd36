// Process identity and limits: ids, uname, sysinfo, rlimits, thread setup
// calls of the C library, prctl/arch_prctl, getrandom, futex (one thread),
// scheduling queries, exit.
#include <asm/prctl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>

#include "process/syscalls/model.h"

namespace slsdbg::process {

namespace {

SyscallClass arch_prctl_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  switch (static_cast<int>(c.args[0])) {
    case ARCH_GET_FS:
    case ARCH_GET_GS:
      if (succeeded(c)) add_region(out, c.args[1], sizeof(uint64_t));
      return SyscallClass::Modelled;
    case ARCH_SET_FS:
    case ARCH_SET_GS:
    case ARCH_GET_CPUID:
    case ARCH_SET_CPUID:
      return SyscallClass::Modelled;
    default:
      return succeeded(c) ? SyscallClass::Unmodelled : SyscallClass::Modelled;
  }
}

SyscallClass prctl_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  switch (static_cast<int>(c.args[0])) {
    case PR_GET_NAME:
      if (succeeded(c)) add_region(out, c.args[1], 16);
      return SyscallClass::Modelled;
    case PR_GET_PDEATHSIG:
    case PR_GET_TSC:
      if (succeeded(c)) add_region(out, c.args[1], sizeof(int));
      return SyscallClass::Modelled;
    case PR_SET_NAME:
    case PR_SET_PDEATHSIG:
    case PR_GET_DUMPABLE:
    case PR_SET_DUMPABLE:
    case PR_GET_NO_NEW_PRIVS:
    case PR_SET_VMA:
    case PR_CAPBSET_READ:
    case PR_GET_SECCOMP:
    case PR_GET_THP_DISABLE:
    case PR_GET_TIMERSLACK:
    case PR_SET_TIMERSLACK:
      return SyscallClass::Modelled;
    default:
      return succeeded(c) ? SyscallClass::Unmodelled : SyscallClass::Modelled;
  }
}

SyscallClass futex_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>&) {
  switch (static_cast<int>(c.args[1]) & FUTEX_CMD_MASK) {
    case FUTEX_WAIT:
    case FUTEX_WAKE:
    case FUTEX_WAIT_BITSET:
    case FUTEX_WAKE_BITSET:
      return SyscallClass::Modelled;
    default:
      // FUTEX_WAKE_OP and the PI/requeue ops change futex words in memory.
      return SyscallClass::Unmodelled;
  }
}

SyscallClass wait4_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (c.result > 0) {
    add_region(out, c.args[1], sizeof(int));
    add_region(out, c.args[3], sizeof(struct rusage));
  }
  return SyscallClass::Modelled;
}

// The fork family (children run unrecorded: children.h). The parent sees
// the child's pid, and with CLONE_PARENT_SETTID also in memory. A child
// sharing the parent's memory until it execs (vfork, posix_spawn's
// CLONE_VM|CLONE_VFORK) wrote into it behind the log: a checkpoint after
// the call holds that, and replay crosses it by restore.
SyscallClass fork_model(const SyscallCall& c, const RemoteReader& mem, std::vector<OutputRegion>& out) {
  if (c.nr == SYS_fork) return SyscallClass::Modelled;
  if (c.nr == SYS_vfork) return c.result > 0 ? SyscallClass::Unmodelled : SyscallClass::Modelled;
  uint64_t flags = c.args[0], parent_tid = c.args[2];
  if (c.nr == SYS_clone3) {
    uint64_t head[4];  // struct clone_args: flags, pidfd, child_tid, parent_tid
    if (!mem.read(c.args[0], head, sizeof head).ok()) return c.result > 0 ? SyscallClass::Unmodelled : SyscallClass::Modelled;
    flags = head[0];
    parent_tid = head[3];
  }
  if (c.result <= 0) return SyscallClass::Modelled;
  if (flags & CLONE_PARENT_SETTID) add_region(out, parent_tid, sizeof(pid_t));
  return (flags & CLONE_VM) ? SyscallClass::Unmodelled : SyscallClass::Modelled;
}

// waitid(idtype, id, infop, options, rusage)
SyscallClass waitid_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (succeeded(c)) {
    add_region(out, c.args[2], sizeof(siginfo_t));
    add_region(out, c.args[4], sizeof(struct rusage));
  }
  return SyscallClass::Modelled;
}

SyscallClass getresid_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (succeeded(c))
    for (int i = 0; i < 3; i++) add_region(out, c.args[i], sizeof(uint32_t));
  return SyscallClass::Modelled;
}

SyscallClass getgroups_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (c.result > 0 && c.args[0] != 0) add_region(out, c.args[1], c.result * sizeof(uint32_t));
  return SyscallClass::Modelled;
}

SyscallClass getcpu_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (succeeded(c)) {
    add_region(out, c.args[0], sizeof(unsigned));
    add_region(out, c.args[1], sizeof(unsigned));
  }
  return SyscallClass::Modelled;
}

}  // namespace

void register_process_models(std::vector<ModelEntry>& out) {
  out.insert(out.end(), {
      {SYS_getpid, {"getpid", no_outputs}},
      {SYS_getppid, {"getppid", no_outputs}},
      {SYS_gettid, {"gettid", no_outputs}},
      {SYS_getuid, {"getuid", no_outputs}},
      {SYS_geteuid, {"geteuid", no_outputs}},
      {SYS_getgid, {"getgid", no_outputs}},
      {SYS_getegid, {"getegid", no_outputs}},
      {SYS_getpgrp, {"getpgrp", no_outputs}},
      {SYS_getpgid, {"getpgid", no_outputs}},
      {SYS_getsid, {"getsid", no_outputs}},
      {SYS_setpgid, {"setpgid", no_outputs}},
      {SYS_setsid, {"setsid", no_outputs}},
      {SYS_getresuid, {"getresuid", getresid_model}},
      {SYS_getresgid, {"getresgid", getresid_model}},
      {SYS_getgroups, {"getgroups", getgroups_model}},
      {SYS_uname, {"uname", fixed_out<0, sizeof(struct utsname)>}},
      {SYS_sysinfo, {"sysinfo", fixed_out<0, sizeof(struct sysinfo)>}},
      {SYS_getrlimit, {"getrlimit", fixed_out<1, sizeof(struct rlimit)>}},
      {SYS_setrlimit, {"setrlimit", no_outputs}},
      {SYS_prlimit64, {"prlimit64", fixed_out<3, sizeof(struct rlimit)>}},
      {SYS_set_tid_address, {"set_tid_address", no_outputs}},
      {SYS_set_robust_list, {"set_robust_list", no_outputs}},
      {SYS_rseq, {"rseq", no_outputs}},  // refused with ENOSYS by the session
      {SYS_arch_prctl, {"arch_prctl", arch_prctl_model}},
      {SYS_prctl, {"prctl", prctl_model}},
      {SYS_getrandom, {"getrandom", result_bytes<0>}},
      {SYS_futex, {"futex", futex_model}},
      {SYS_sched_getaffinity, {"sched_getaffinity", result_bytes<2>}},
      {SYS_sched_setaffinity, {"sched_setaffinity", no_outputs}},
      {SYS_sched_yield, {"sched_yield", no_outputs}},
      {SYS_sched_getscheduler, {"sched_getscheduler", no_outputs}},
      {SYS_sched_getparam, {"sched_getparam", fixed_out<1, sizeof(struct sched_param)>}},
      {SYS_getpriority, {"getpriority", no_outputs}},
      {SYS_setpriority, {"setpriority", no_outputs}},
      {SYS_getcpu, {"getcpu", getcpu_model}},
      {SYS_wait4, {"wait4", wait4_model}},
      {SYS_waitid, {"waitid", waitid_model}},
      {SYS_fork, {"fork", fork_model}},
      {SYS_vfork, {"vfork", fork_model}},
      {SYS_clone, {"clone", fork_model}},
      {SYS_clone3, {"clone3", fork_model}},
      {SYS_kill, {"kill", no_outputs}},
      {SYS_tkill, {"tkill", no_outputs}},
      {SYS_tgkill, {"tgkill", no_outputs}},
      {SYS_exit, {"exit", no_outputs}},
      {SYS_exit_group, {"exit_group", no_outputs}},
      {SYS_personality, {"personality", no_outputs}},
      // Only a failed execve reaches its syscall exit (a successful one is
      // followed at its exec event: exec_follow.h); it wrote nothing. A
      // shell's PATH search fails several times before the exec.
      {SYS_execve, {"execve", no_outputs}},
      {SYS_execveat, {"execveat", no_outputs}},
  });
}

}  // namespace slsdbg::process
