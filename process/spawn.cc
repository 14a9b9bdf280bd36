#include "process/spawn.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>

#include "process/clone_args.h"

namespace slsdbg::process {

namespace {

// What the child sends back through its CLOEXEC pipe when it fails. The pipe
// stays silent (closed by execve) when the exec succeeds.
struct ChildFailure {
  int32_t stage;  // 1: hook failed, 2: execve failed
  int32_t err;
  char message[256];
};

[[noreturn]] void child_fail(int fd, int stage, int err, const std::string& message) {
  ChildFailure f{};
  f.stage = stage;
  f.err = err;
  snprintf(f.message, sizeof f.message, "%s", message.c_str());
  ssize_t ignored = write(fd, &f, sizeof f);
  (void)ignored;
  _exit(127);
}

// argv and envp built before the fork: a child cloned without fork's
// handlers (clone_with_pid) must not allocate.
struct ExecArgs {
  std::vector<char*> argv, envp;
  char** env = environ;
  explicit ExecArgs(const SpawnOptions& options) {
    for (const auto& a : options.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (!options.env.empty()) {
      for (const auto& e : options.env) envp.push_back(const_cast<char*>(e.c_str()));
      envp.push_back(nullptr);
      env = envp.data();
    }
  }
};

// fork() with the given pid: clone3 with set_tid, as fork does it (a copy
// of this process, SIGCHLD at its end). -1 when the kernel refuses (pid in
// use, no privilege, no clone3).
pid_t clone_with_pid(pid_t want) {
  CloneArgs args{};
  args.exit_signal = SIGCHLD;
  args.set_tid = reinterpret_cast<uint64_t>(&want);
  args.set_tid_size = 1;
  return pid_t(::syscall(SYS_clone3, &args, sizeof args));
}

[[noreturn]] void run_child(const SpawnOptions& options, const ExecArgs& exec, int go_fd, int report_fd) {
  char byte;
  // Wait until the parent has seized us, so the hook and execve are traced.
  while (read(go_fd, &byte, 1) < 0 && errno == EINTR) {
  }
  close(go_fd);
  if (options.in_child_before_exec) {
    Status s = options.in_child_before_exec();
    if (!s.ok()) child_fail(report_fd, 1, s.error().errno_value, s.error().message);
  }
  execvpe(exec.argv[0], exec.argv.data(), exec.env);
  child_fail(report_fd, 2, errno, "execve");
}

}  // namespace

Result<Task> spawn_traced(const SpawnOptions& options) {
  if (options.argv.empty() || options.argv[0].empty()) return Error::msg("spawn: no program given");
  const std::string& prog = options.argv[0];
  int go[2], report[2];
  if (pipe2(go, O_CLOEXEC) != 0) return Error::from_errno("pipe2");
  if (pipe2(report, O_CLOEXEC) != 0) {
    int e = errno;
    close(go[0]);
    close(go[1]);
    return Error::from_errno("pipe2", e);
  }
  const ExecArgs exec(options);
  pid_t pid = options.pid > 0 ? clone_with_pid(options.pid) : -1;
  if (pid < 0) pid = fork();
  if (pid < 0) {
    int e = errno;
    close(go[0]); close(go[1]); close(report[0]); close(report[1]);
    return Error::from_errno("fork", e);
  }
  if (pid == 0) {
    close(go[1]);
    close(report[0]);
    run_child(options, exec, go[0], report[1]);
  }
  close(go[0]);
  close(report[1]);
  UniqueFd go_w(go[1]), report_r(report[0]);

  auto abandon = [&](Error e) -> Error {
    ::kill(pid, SIGKILL);
    int st;
    while (waitpid(pid, &st, __WALL) < 0 && errno == EINTR) {
    }
    return e;
  };

  if (ptrace(PTRACE_SEIZE, pid, nullptr, reinterpret_cast<void*>(kTraceOptions)) != 0)
    return abandon(Error::from_errno("ptrace(SEIZE)"));
  char byte = 1;
  if (write(go_w.get(), &byte, 1) != 1) return abandon(Error::from_errno("write(spawn pipe)"));
  go_w.reset();

  Task task(Tid(pid), pid);
  for (;;) {
    auto w = task.wait();
    if (!w.ok()) return abandon(w.take_error());
    switch (w->kind) {
      case StopKind::PtraceEvent:
        if (w->event == PTRACE_EVENT_EXEC) return task;
        // seccomp stops (the hook's filter seeing execve), fork/clone of the hook: let them run.
        if (auto s = task.cont(); !s.ok()) return abandon(s.take_error());
        break;
      case StopKind::SyscallStop:
      case StopKind::GroupStop:
        if (auto s = task.cont(); !s.ok()) return abandon(s.take_error());
        break;
      case StopKind::SignalDelivery:
        if (auto s = task.cont(w->signo); !s.ok()) return abandon(s.take_error());
        break;
      case StopKind::Exited:
      case StopKind::Killed: {
        ChildFailure f{};
        ssize_t n = read(report_r.get(), &f, sizeof f);
        if (n == static_cast<ssize_t>(sizeof f)) {
          f.message[sizeof f.message - 1] = 0;
          if (f.stage == 2) return Error{"cannot execute " + prog + ": " + std::strerror(f.err), f.err};
          return Error{"cannot execute " + prog + ": setup in the child failed: " + f.message, f.err};
        }
        if (w->kind == StopKind::Killed)
          return Error::msg("cannot execute " + prog + ": child killed by signal " + std::to_string(w->signo) + " before exec");
        return Error::msg("cannot execute " + prog + ": child exited with status " + std::to_string(w->exit_code) + " before exec");
      }
    }
  }
}

}  // namespace slsdbg::process
