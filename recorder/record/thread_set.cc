#include "recorder/record/thread_set.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <sys/syscall.h>

#include <cerrno>
#include <string>

namespace slsdbg::recorder {

using process::RemoteReader;

bool may_block(long nr, const std::array<uint64_t, 6>& args) {
  switch (nr) {
    case SYS_futex: {
      const int op = static_cast<int>(args[1]) & FUTEX_CMD_MASK;
      return op == FUTEX_WAIT || op == FUTEX_WAIT_BITSET || op == FUTEX_LOCK_PI || op == FUTEX_LOCK_PI2 ||
             op == FUTEX_WAIT_REQUEUE_PI;
    }
    case SYS_futex_waitv:
    case SYS_sched_yield:
    case SYS_nanosleep: case SYS_clock_nanosleep:
    case SYS_read: case SYS_readv: case SYS_pread64: case SYS_preadv:
    case SYS_recvfrom: case SYS_recvmsg: case SYS_recvmmsg:
    case SYS_accept: case SYS_accept4: case SYS_connect:
    case SYS_wait4: case SYS_waitid:
    case SYS_poll: case SYS_ppoll: case SYS_select: case SYS_pselect6:
    case SYS_epoll_wait: case SYS_epoll_pwait: case SYS_epoll_pwait2:
    case SYS_pause: case SYS_rt_sigsuspend: case SYS_rt_sigtimedwait:
    case SYS_msgrcv: case SYS_semop: case SYS_semtimedop:
    case SYS_flock:
      return true;
    default:
      return false;
  }
}

std::optional<std::pair<pid_t, uint64_t>> clear_child_tid_set_by(pid_t caller, long nr,
                                                                 const std::array<uint64_t, 6>& args,
                                                                 int64_t result, const RemoteReader& mem) {
  if (nr == SYS_set_tid_address) return std::make_pair(caller, args[0]);
  if ((nr != SYS_clone && nr != SYS_clone3) || result <= 0) return std::nullopt;
  uint64_t flags = args[0], child_tid = args[3];  // clone(flags, stack, parent_tid, child_tid, tls)
  if (nr == SYS_clone3) {
    uint64_t head[3];  // struct clone_args: flags, pidfd, child_tid
    if (!mem.read(args[0], head, sizeof head).ok()) return std::nullopt;
    flags = head[0];
    child_tid = head[2];
  }
  if (!(flags & CLONE_THREAD)) return std::nullopt;
  return std::make_pair(pid_t(result), (flags & CLONE_CHILD_CLEARTID) ? child_tid : 0);
}

bool rewound_before_syscall(pid_t tid) {
  user_regs_struct r;
  if (ptrace(PTRACE_GETREGS, tid, nullptr, &r) != 0) return false;
  errno = 0;
  const long word = ptrace(PTRACE_PEEKTEXT, tid, reinterpret_cast<void*>(r.rip), nullptr);
  if (errno != 0) return false;
  return (word & 0xffff) == 0x050f;  // 0f 05: syscall
}

bool is_thread_of(pid_t tid, pid_t tgid) {
  struct stat st;
  const std::string path = "/proc/" + std::to_string(tgid) + "/task/" + std::to_string(tid);
  return ::stat(path.c_str(), &st) == 0;
}

ThreadSet::ThreadSet(pid_t leader) : leader_(leader), running_(leader) {
  threads_[leader].where = ThreadCtx::Where::Running;
}

std::vector<pid_t> ThreadSet::tids() const {
  std::vector<pid_t> out;
  if (threads_.count(leader_)) out.push_back(leader_);
  for (const auto& [tid, ctx] : threads_)
    if (tid != leader_) out.push_back(tid);
  return out;
}

void ThreadSet::add(pid_t tid) {
  if (threads_.count(tid)) return;
  // Not stopped yet: like a thread in a syscall it runs nothing of the
  // program until its first stop, where it parks.
  threads_[tid].where = ThreadCtx::Where::InKernel;
  started_++;
}

void ThreadSet::remove(pid_t tid) {
  threads_.erase(tid);
  runs_program_.erase(tid);
  if (running_ == tid) running_ = -1;
}

void ThreadSet::set_running(pid_t tid) {
  if (running_ > 0 && threads_.count(running_) && threads_[running_].where == ThreadCtx::Where::Running)
    threads_[running_].where = ThreadCtx::Where::Parked;
  running_ = tid;
  if (tid > 0) threads_.at(tid).where = ThreadCtx::Where::Running;
}

// Round robin by tid: the first parked thread after `after`, wrapping.
std::optional<pid_t> ThreadSet::next_parked(pid_t after) const {
  for (auto it = threads_.upper_bound(after); it != threads_.end(); ++it)
    if (it->second.where == ThreadCtx::Where::Parked) return it->first;
  for (auto it = threads_.begin(); it != threads_.end() && it->first <= after; ++it)
    if (it->second.where == ThreadCtx::Where::Parked) return it->first;
  return std::nullopt;
}

std::optional<pid_t> ThreadSet::note_resumed(pid_t tid, bool runs_program) {
  if (!runs_program) {
    runs_program_.erase(tid);
    return std::nullopt;
  }
  runs_program_.insert(tid);
  for (pid_t other : runs_program_)
    if (other != tid) {
      overlaps_++;
      return other;
    }
  return std::nullopt;
}

bool ThreadSet::any_parked() const {
  for (const auto& [tid, ctx] : threads_)
    if (ctx.where == ThreadCtx::Where::Parked) return true;
  return false;
}

size_t ThreadSet::not_exiting() const {
  size_t n = 0;
  for (const auto& [tid, ctx] : threads_) n += ctx.exiting ? 0 : 1;
  return n;
}

}  // namespace slsdbg::recorder
