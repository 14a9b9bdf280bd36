#include "recorder/record/children.h"

#include <linux/kcmp.h>
#include <linux/sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <cerrno>

#include "common/log.h"
#include "process/inject.h"
#include "process/proc_identity.h"
#include "process/proc_maps.h"
#include "process/remote_memory.h"
#include "process/syscalls/model.h"
#include "recorder/record/member.h"
#include "recorder/record/rdtsc.h"

namespace slsdbg::recorder {

using process::VmReader;
using process::Dispositions;
using process::syscall_name;

namespace {

// What the program asked for. clone3's flags are the first field of its
// struct clone_args; fork and vfork take none.
Result<uint64_t> clone_flags(long nr, const std::array<uint64_t, 6>& args, pid_t pid) {
  switch (nr) {
    case SYS_fork: return uint64_t{SIGCHLD};
    case SYS_vfork: return uint64_t{CLONE_VM | CLONE_VFORK | SIGCHLD};
    case SYS_clone: return args[0];
    default: {
      uint64_t flags = 0;
      TRY(VmReader(pid).read(args[0], &flags, sizeof flags));
      return flags;
    }
  }
}

std::string refused(const std::string& what, long nr) {
  return what + " (the program called " + syscall_name(nr) + ")";
}

// Whether `pid` shares its parent's memory (a vfork-style child before its
// execve). A child whose parent is gone already (reparented to init or a
// subreaper) was forked: a vfork parent waits until its child execs. Unknown
// (no kcmp) counts as shared: such a child stays unrecorded until it execs.
bool shares_parent_memory(pid_t pid, pid_t parent, pid_t recorded) {
  if (parent != recorded && (parent <= 1 || kill(parent, 0) != 0)) return false;
  const long order = syscall(SYS_kcmp, pid, parent, KCMP_VM, 0, 0);  // 0: the same mm; 1..3: different
  if (order < 0 && errno != ENOSYS) return false;
  return !(order >= 1 && order <= 3);
}

// Threads of process `pid` (0 when it cannot be read).
size_t thread_count(pid_t pid) {
  const std::optional<std::string> threads = process::read_status_field(pid, "Threads");
  return threads ? static_cast<size_t>(std::atol(threads->c_str())) : 0;
}

void resume(pid_t pid, int signo, __ptrace_request request = PTRACE_CONT) {
  // ESRCH: killed meanwhile; waitpid reports its death next.
  ptrace(request, pid, nullptr, reinterpret_cast<void*>(static_cast<long>(signo)));
}

}  // namespace

bool creates_thread(long nr, const std::array<uint64_t, 6>& args, pid_t pid) {
  if (!is_fork_call(nr)) return false;
  Result<uint64_t> f = clone_flags(nr, args, pid);
  return f.ok() && (*f & CLONE_THREAD);
}

std::string fork_refusal(long nr, const std::array<uint64_t, 6>& args, pid_t pid, bool threads_allowed) {
  Result<uint64_t> f = clone_flags(nr, args, pid);
  if (!f.ok()) return "";  // clone3 with a bad pointer: the kernel fails it with EFAULT (logged)
  const uint64_t flags = *f;
  if ((flags & CLONE_THREAD) && threads_allowed) {
    // A thread as pthread_create makes it: everything shared.
    constexpr uint64_t kShared = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND;
    constexpr uint64_t kAllowed = kShared | CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID |
                                  CLONE_CHILD_CLEARTID | CLONE_DETACHED | 0xff;
    if ((flags & kShared) == kShared && (flags & ~kAllowed) == 0) return "";
    char hex[32];
    snprintf(hex, sizeof hex, "%#llx", static_cast<unsigned long long>(flags));
    return refused(std::string("a thread with clone flags ") + hex + " is not supported yet", nr);
  }
  // A thread, or memory shared for longer than a vfork's wait.
  if ((flags & CLONE_THREAD) || ((flags & CLONE_VM) && !(flags & CLONE_VFORK)))
    return refused(std::string("multithreaded / multi-process recording is not supported yet") +
                       ((flags & CLONE_THREAD) ? "; `record --threads` records threads (replay --check, restore and GDB take them)" : ""),
                   nr);
  // Sharing that would let the child change the recorded process behind the
  // log (descriptor table, cwd/umask, signal handlers), or put it outside
  // the recorded process's family (CLONE_PARENT), or create a descriptor
  // replay does not know (CLONE_PIDFD).
  constexpr uint64_t kUnsupported = CLONE_FILES | CLONE_FS | CLONE_SIGHAND | CLONE_PARENT | CLONE_PIDFD |
                                    CLONE_PTRACE | CLONE_UNTRACED | CLONE_SYSVSEM | CLONE_INTO_CGROUP;
  if (flags & kUnsupported) {
    char hex[32];
    snprintf(hex, sizeof hex, "%#llx", static_cast<unsigned long long>(flags & kUnsupported));
    return refused(std::string("a child process sharing state with the recorded one (clone flags ") + hex +
                       ") is not supported yet",
                   nr);
  }
  // A forked child is recorded as a member; one that shares writable
  // memory with its parent runs only in its turn (shared_turn.h).
  return "";
}

void Children::adopt(pid_t child) {
  started_.push_back(child);
  SLSDBG_DEBUG("record", "child %d started; it runs unrecorded", child);
}

Status Children::hand_over(pid_t pid, MemberOrigin origin) {
  // Its parent may have ended already: then it is this session's process
  // (a grandchild through an unrecorded vfork child is rarer still).
  pid_t parent = process::read_parent_pid(pid);
  if (parent <= 1 || (parent != recorded_ && kill(parent, 0) != 0)) parent = recorded_;
  static const Dispositions kNone;
  TRY_CTX(group_->hand_over(pid, parent, origin, dispositions_ ? *dispositions_ : kNone),
          "handing child " + std::to_string(pid) + " over to its recording");
  seen_.erase(pid);
  return ok_status();
}

// A forked child, and a vfork child of a single-threaded process, is
// recorded as a member from here. Otherwise: a child of
// the recorded process starts with rdtsc trapping (PR_SET_TSC is inherited)
// and nobody to emulate it for its own sake: turn it off before its first
// instruction, so it and whatever it execs read the counter at full speed.
// Grandchildren inherit the enabled counter.
Result<bool> Children::first_stop(pid_t pid) {
  seen_.insert(pid);
  const pid_t parent = process::read_parent_pid(pid);
  if (group_ && !shares_parent_memory(pid, parent, recorded_)) {
    TRY(hand_over(pid, MemberOrigin::Fork));
    return true;
  }
  // A vfork child of a single-threaded parent runs alone in the memory they
  // share: the parent waits in the kernel until the child execs or exits.
  if (group_ && parent == recorded_ && thread_count(recorded_) == 1) {
    TRY(hand_over(pid, MemberOrigin::Vfork));
    return true;
  }
  if (parent != recorded_) return false;
  process::Task task(Tid(pid), pid);
  task.set_has_injection_page(true);  // inherited from the recorded process
  Result<int64_t> r = process::inject_syscall(task, SYS_prctl, {PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0, 0});
  if (r.ok() && *r == 0)
    SLSDBG_DEBUG("record", "child %d: rdtsc no longer traps", pid);
  else
    SLSDBG_DEBUG("record", "child %d: rdtsc stays trapped (%s); emulated", pid,
                 r.ok() ? "prctl failed" : r.error().message.c_str());
  return false;
}

Status Children::on_stop(pid_t pid, int status) {
  if (WIFEXITED(status) || WIFSIGNALED(status)) {
    seen_.erase(pid);
    return ok_status();
  }
  if (!WIFSTOPPED(status)) return ok_status();
  if (!seen_.count(pid) && TRY(first_stop(pid))) return ok_status();
  const int sig = WSTOPSIG(status);
  const int event = (status >> 16) & 0xff;
  // A vfork-style child has its own memory from its execve on.
  if (event == PTRACE_EVENT_EXEC && group_) return hand_over(pid, MemberOrigin::Exec);
  if (event == PTRACE_EVENT_STOP && sig != SIGTRAP) {
    // Group-stop (SIGSTOP, SIGTSTP ...): stays stopped until a SIGCONT.
    if (ptrace(PTRACE_LISTEN, pid, nullptr, nullptr) != 0 && errno != ESRCH)
      return Error::from_errno("ptrace(PTRACE_LISTEN)");
    return ok_status();
  }
  if (event != 0 || sig == (SIGTRAP | 0x80)) {
    // Seccomp stops (its syscalls run for real), exec, fork, the initial
    // and interrupt stops: nothing to do but go on.
    resume(pid, 0);
    return ok_status();
  }
  if (sig == SIGSEGV) {
    // rdtsc still trapped (the injection failed): run it on the child's behalf.
    siginfo_t si{};
    user_regs_struct regs{};
    uint8_t code[3] = {0, 0, 0};
    if (ptrace(PTRACE_GETSIGINFO, pid, nullptr, &si) == 0 && si.si_code == SI_KERNEL &&
        ptrace(PTRACE_GETREGS, pid, nullptr, &regs) == 0 && VmReader(pid).read(regs.rip, code, 2).ok()) {
      if (std::optional<TscInsn> insn = tsc_instruction_at(code)) {
        (void)VmReader(pid).read(regs.rip, code, 3);
        emulate_tsc(*insn, pid, regs);
        if (ptrace(PTRACE_SETREGS, pid, nullptr, &regs) != 0 && errno != ESRCH)
          return Error::from_errno("ptrace(PTRACE_SETREGS)");
        resume(pid, 0);
        return ok_status();
      }
    }
  }
  resume(pid, sig);  // its own signal: delivered as without a tracer
  return ok_status();
}

Status Children::drain() {
  for (;;) {
    int status = 0;
    const pid_t got = waitpid(-1, &status, __WALL | __WNOTHREAD);  // this thread's tracees only (member.h)
    if (got < 0) {
      if (errno == EINTR) continue;
      if (errno == ECHILD) return ok_status();
      return Error::from_errno("waitpid");
    }
    TRY(on_stop(got, status));
  }
}

}  // namespace slsdbg::recorder
