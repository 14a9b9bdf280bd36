#include "process/task.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>

#include "process/wait_cut.h"

namespace slsdbg::process {

namespace {

std::string tid_str(Tid tid) { return std::to_string(tid.value); }

}  // namespace

Task::Task(Tid tid, pid_t tgid) : tid_(tid), tgid_(tgid) {}

Task::Task(Task&& other) noexcept { *this = std::move(other); }

Task& Task::operator=(Task&& other) noexcept {
  if (this != &other) {
    tid_ = std::exchange(other.tid_, Tid(0));
    tgid_ = std::exchange(other.tgid_, 0);
    mem_ = std::move(other.mem_);
    last_stop_ = std::exchange(other.last_stop_, WaitResult{StopKind::Exited});
    last_resume_ = other.last_resume_;
    injection_page_ = std::exchange(other.injection_page_, false);
  }
  return *this;
}

Result<user_regs_struct> Task::regs() {
  user_regs_struct r{};
  if (ptrace(PTRACE_GETREGS, tid_.value, nullptr, &r) != 0) return Error::from_errno("ptrace(GETREGS, " + tid_str(tid_) + ")");
  return r;
}

Status Task::set_regs(const user_regs_struct& r) {
  if (ptrace(PTRACE_SETREGS, tid_.value, nullptr, &r) != 0) return Error::from_errno("ptrace(SETREGS, " + tid_str(tid_) + ")");
  return ok_status();
}

Result<user_fpregs_struct> Task::fpregs() {
  user_fpregs_struct r{};
  if (ptrace(PTRACE_GETFPREGS, tid_.value, nullptr, &r) != 0) return Error::from_errno("ptrace(GETFPREGS, " + tid_str(tid_) + ")");
  return r;
}

Status Task::set_fpregs(const user_fpregs_struct& r) {
  if (ptrace(PTRACE_SETFPREGS, tid_.value, nullptr, &r) != 0) return Error::from_errno("ptrace(SETFPREGS, " + tid_str(tid_) + ")");
  return ok_status();
}

Result<std::vector<uint8_t>> Task::xsave() {
  // Large enough for every XSAVE layout shipping today (AMX included); the
  // kernel trims iov_len to the real size.
  std::vector<uint8_t> area(16384);
  iovec iov{area.data(), area.size()};
  if (ptrace(PTRACE_GETREGSET, tid_.value, reinterpret_cast<void*>(NT_X86_XSTATE), &iov) != 0)
    return Error::from_errno("ptrace(GETREGSET NT_X86_XSTATE, " + tid_str(tid_) + ")");
  area.resize(iov.iov_len);
  return area;
}

Status Task::set_xsave(std::span<const uint8_t> area) {
  iovec iov{const_cast<uint8_t*>(area.data()), area.size()};
  if (ptrace(PTRACE_SETREGSET, tid_.value, reinterpret_cast<void*>(NT_X86_XSTATE), &iov) != 0)
    return Error::from_errno("ptrace(SETREGSET NT_X86_XSTATE, " + tid_str(tid_) + ")");
  return ok_status();
}

Result<uint64_t> Task::signal_mask() {
  uint64_t mask = 0;
  if (ptrace(PTRACE_GETSIGMASK, tid_.value, sizeof(mask), &mask) != 0)
    return Error::from_errno("ptrace(GETSIGMASK, " + tid_str(tid_) + ")");
  return mask;
}

Status Task::set_signal_mask(uint64_t mask) {
  if (ptrace(PTRACE_SETSIGMASK, tid_.value, sizeof(mask), &mask) != 0)
    return Error::from_errno("ptrace(SETSIGMASK, " + tid_str(tid_) + ")");
  return ok_status();
}

Result<int> Task::mem_fd() {
  if (!mem_.valid()) {
    std::string path = "/proc/" + tid_str(tid_) + "/mem";
    int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return Error::from_errno("open(" + path + ")");
    mem_.reset(fd);
  }
  return mem_.get();
}

Status Task::read_memory(RemoteAddr addr, std::span<uint8_t> out) {
  size_t done = 0;
  while (done < out.size()) {
    iovec local{out.data() + done, out.size() - done};
    iovec remote{reinterpret_cast<void*>(addr.value + done), out.size() - done};
    ssize_t n = process_vm_readv(tid_.value, &local, 1, &remote, 1, 0);
    if (n <= 0) break;  // EFAULT/EPERM (e.g. PROT_NONE page): try /proc/PID/mem below
    done += static_cast<size_t>(n);
  }
  while (done < out.size()) {
    int fd = TRY(mem_fd());
    ssize_t n = pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(addr.value + done));
    if (n < 0) return Error::from_errno("pread(/proc/" + tid_str(tid_) + "/mem) at 0x" + [&] {
      char buf[32]; snprintf(buf, sizeof buf, "%llx", (unsigned long long)(addr.value + done)); return std::string(buf); }());
    if (n == 0) return Error::msg("reading tracee memory: unmapped address");
    done += static_cast<size_t>(n);
  }
  return ok_status();
}

Status Task::write_memory(RemoteAddr addr, std::span<const uint8_t> data) {
  int fd = TRY(mem_fd());
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = pwrite(fd, data.data() + done, data.size() - done, static_cast<off_t>(addr.value + done));
    if (n < 0) {
      char buf[64]; snprintf(buf, sizeof buf, " at 0x%llx", (unsigned long long)(addr.value + done));
      return Error::from_errno("pwrite(/proc/" + tid_str(tid_) + "/mem)" + buf);
    }
    if (n == 0) return Error::msg("writing tracee memory: unmapped address");
    done += static_cast<size_t>(n);
  }
  return ok_status();
}

Status Task::resume(Resume how, int signo) {
  __ptrace_request req = how == Resume::Continue ? PTRACE_CONT : how == Resume::Syscall ? PTRACE_SYSCALL : PTRACE_SINGLESTEP;
  const char* name = how == Resume::Continue ? "ptrace(CONT, " : how == Resume::Syscall ? "ptrace(SYSCALL, " : "ptrace(SINGLESTEP, ";
  if (ptrace(req, tid_.value, nullptr, reinterpret_cast<void*>(static_cast<long>(signo))) != 0)
    return Error::from_errno(name + tid_str(tid_) + ")");
  last_resume_ = how;
  return ok_status();
}

Status Task::interrupt() {
  if (ptrace(PTRACE_INTERRUPT, tid_.value, nullptr, nullptr) != 0) return Error::from_errno("ptrace(INTERRUPT, " + tid_str(tid_) + ")");
  return ok_status();
}

Result<WaitResult> Task::wait() {
  WaitResult w;
  for (;;) {
    int status = 0;
    pid_t r;
    {
      const wait_cut::Window window(tgid_, tid_.value);
      do {
        r = waitpid(tid_.value, &status, __WALL);
      } while (r < 0 && errno == EINTR);
    }
    if (r < 0) return Error::from_errno("waitpid(" + tid_str(tid_) + ")");
    w = decode_wait_status(status);
    if (w.kind != StopKind::SignalDelivery || w.signo != SIGSTOP || !wait_cut::is_cut_signal(tid_.value)) break;
    last_stop_ = w;
    if (wait_cut::cut_now())
      return Error::from_errno("waiting for thread " + tid_str(tid_) + ": cut by the user's interrupt", EINTR);
    // Meant for a wait that had already ended: dropped, and on as before.
    TRY(resume(last_resume_));
  }
  if (w.is_event(PTRACE_EVENT_EXEC)) {
    mem_.reset();  // the old fd still names the pre-exec address space
    injection_page_ = false;
  }
  last_stop_ = w;
  return w;
}

Result<WaitResult> Task::query_stop() {
  __ptrace_syscall_info info = TRY(syscall_info());
  WaitResult w;
  if (info.op == PTRACE_SYSCALL_INFO_ENTRY || info.op == PTRACE_SYSCALL_INFO_EXIT) {
    w.kind = StopKind::SyscallStop;
    w.signo = SIGTRAP;
    return w;
  }
  if (info.op == PTRACE_SYSCALL_INFO_SECCOMP) {
    w.kind = StopKind::PtraceEvent;
    w.event = PTRACE_EVENT_SECCOMP;
    w.signo = SIGTRAP;
    return w;
  }
  siginfo_t si{};
  if (ptrace(PTRACE_GETSIGINFO, tid_.value, nullptr, &si) != 0) {
    if (errno != EINVAL) return Error::from_errno("ptrace(GETSIGINFO, " + tid_str(tid_) + ")");
    w.kind = StopKind::GroupStop;  // the only stop without a siginfo
    w.signo = SIGSTOP;
    return w;
  }
  if (si.si_signo == SIGTRAP && (si.si_code >> 8) != 0) {
    w.kind = StopKind::PtraceEvent;
    w.event = si.si_code >> 8;
    w.signo = SIGTRAP;
    return w;
  }
  w.kind = StopKind::SignalDelivery;
  w.signo = si.si_signo;
  return w;
}

Result<__ptrace_syscall_info> Task::syscall_info() {
  __ptrace_syscall_info info{};
  if (ptrace(PTRACE_GET_SYSCALL_INFO, tid_.value, sizeof(info), &info) <= 0)
    return Error::from_errno("ptrace(GET_SYSCALL_INFO, " + tid_str(tid_) + ")");
  return info;
}

Result<siginfo_t> Task::siginfo() {
  siginfo_t info{};
  if (ptrace(PTRACE_GETSIGINFO, tid_.value, nullptr, &info) != 0) return Error::from_errno("ptrace(GETSIGINFO, " + tid_str(tid_) + ")");
  return info;
}

Status Task::set_siginfo(const siginfo_t& info) {
  if (ptrace(PTRACE_SETSIGINFO, tid_.value, nullptr, &info) != 0) return Error::from_errno("ptrace(SETSIGINFO, " + tid_str(tid_) + ")");
  return ok_status();
}

Result<unsigned long> Task::event_message() {
  unsigned long msg = 0;
  if (ptrace(PTRACE_GETEVENTMSG, tid_.value, nullptr, &msg) != 0) return Error::from_errno("ptrace(GETEVENTMSG, " + tid_str(tid_) + ")");
  return msg;
}

void Task::kill_and_reap() {
  if (tgid_ <= 0) return;
  // Traced threads must each be reaped, or the leader never becomes reapable.
  std::vector<pid_t> others;
  if (DIR* dir = opendir(("/proc/" + std::to_string(tgid_) + "/task").c_str())) {
    while (dirent* de = readdir(dir)) {
      pid_t t = static_cast<pid_t>(std::atoi(de->d_name));
      if (t > 0 && t != tid_.value) others.push_back(t);
    }
    closedir(dir);
  }
  if (::kill(tgid_, SIGKILL) != 0) return;
  int status = 0;
  for (pid_t t : others) {
    while (waitpid(t, &status, __WALL) < 0 && errno == EINTR) {
    }
  }
  while (waitpid(tid_.value, &status, __WALL) < 0 && errno == EINTR) {
  }
  last_stop_ = WaitResult{StopKind::Killed, status, 0, SIGKILL, 0};
}

}  // namespace slsdbg::process
