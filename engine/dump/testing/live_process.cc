#include "engine/dump/testing/live_process.h"

#include <dirent.h>
#include <elf.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace slsdbg::dump::testing {

namespace {

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::from_errno("open " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<std::vector<store::Mapping>> read_maps(pid_t pid) {
  auto text = TRY(read_file("/proc/" + std::to_string(pid) + "/maps"));
  std::vector<store::Mapping> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    unsigned long long start, end, off, inode;
    unsigned int major, minor;
    char perms[8];
    int consumed = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &major, &minor, &inode,
                    &consumed) < 7)
      return Error::msg("cannot parse /proc/PID/maps line: " + line);
    store::Mapping m;
    m.start = start;
    m.end = end;
    m.file_offset = off;
    m.dev = makedev(major, minor);
    m.inode = inode;
    if (perms[0] == 'r') m.prot |= PROT_READ;
    if (perms[1] == 'w') m.prot |= PROT_WRITE;
    if (perms[2] == 'x') m.prot |= PROT_EXEC;
    if (perms[3] == 's') m.flags |= store::flag(store::MappingFlags::Shared);
    m.path = consumed > 0 && static_cast<size_t>(consumed) <= line.size() ? line.substr(consumed) : "";
    if (inode == 0) m.flags |= store::flag(store::MappingFlags::Anonymous);
    if (m.path == "[stack]") m.flags |= store::flag(store::MappingFlags::Stack);
    if (m.path == "[heap]") m.flags |= store::flag(store::MappingFlags::Heap);
    if (m.path == "[vdso]" || m.path == "[vvar]" || m.path == "[vsyscall]")
      m.flags |= store::flag(store::MappingFlags::Vdso);
    out.push_back(m);
  }
  return out;
}

uint64_t status_hex_field(const std::string& status, const char* key) {
  auto pos = status.find(key);
  if (pos == std::string::npos) return 0;
  return std::strtoull(status.c_str() + pos + std::strlen(key), nullptr, 16);
}

Result<store::ThreadState> read_thread(pid_t pid, pid_t tid) {
  store::ThreadState t;
  t.tid = Tid(tid);
  if (ptrace(PTRACE_GETREGS, tid, nullptr, &t.regs) != 0) return Error::from_errno("PTRACE_GETREGS");
  if (ptrace(PTRACE_GETFPREGS, tid, nullptr, &t.fpregs) != 0) return Error::from_errno("PTRACE_GETFPREGS");
  t.xsave.resize(64 * 1024);
  iovec iov{t.xsave.data(), t.xsave.size()};
  if (ptrace(PTRACE_GETREGSET, tid, reinterpret_cast<void*>(NT_X86_XSTATE), &iov) != 0)
    return Error::from_errno("PTRACE_GETREGSET NT_X86_XSTATE");
  t.xsave.resize(iov.iov_len);
  auto status = TRY(read_file("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/status"));
  t.sigmask = status_hex_field(status, "SigBlk:");
  t.sigpending = status_hex_field(status, "SigPnd:");
  return t;
}

}  // namespace

Result<store::ProcessState> read_live_state(pid_t pid, const std::vector<pid_t>& tids) {
  store::ProcessState s;
  s.pid = pid;
  for (pid_t tid : tids) s.threads.push_back(TRY(read_thread(pid, tid)));
  s.mappings = TRY(read_maps(pid));
  std::string proc = "/proc/" + std::to_string(pid);
  auto auxv = TRY(read_file(proc + "/auxv"));
  s.auxv.assign(auxv.begin(), auxv.end());
  char buf[4096];
  ssize_t n = ::readlink((proc + "/exe").c_str(), buf, sizeof buf - 1);
  if (n < 0) return Error::from_errno("readlink " + proc + "/exe");
  s.exe.assign(buf, static_cast<size_t>(n));
  n = ::readlink((proc + "/cwd").c_str(), buf, sizeof buf - 1);
  if (n > 0) s.cwd.assign(buf, static_cast<size_t>(n));
  auto cmdline = TRY(read_file(proc + "/cmdline"));
  std::string arg;
  for (char c : cmdline) {
    if (c == 0) {
      s.cmdline.push_back(arg);
      arg.clear();
    } else {
      arg += c;
    }
  }
  return s;
}

Status LiveMemory::read(uint64_t addr, std::span<uint8_t> out) {
  size_t done = 0;
  while (done < out.size()) {
    iovec local{out.data() + done, out.size() - done};
    iovec remote{reinterpret_cast<void*>(addr + done), out.size() - done};
    ssize_t n = ::process_vm_readv(pid_, &local, 1, &remote, 1, 0);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno != EFAULT && errno != EIO) return Error::from_errno("process_vm_readv");
    // The page at addr+done is not readable: zero it and go on.
    size_t page_left = kPageSize - ((addr + done) % kPageSize);
    size_t len = std::min(page_left, out.size() - done);
    std::memset(out.data() + done, 0, len);
    done += len;
  }
  return ok_status();
}

Result<pid_t> spawn_until_signal(const std::vector<std::string>& argv, int stop_signal) {
  pid_t pid = ::fork();
  if (pid < 0) return Error::from_errno("fork");
  if (pid == 0) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int forward = 0;
  for (;;) {
    int status = 0;
    if (::waitpid(pid, &status, 0) < 0) return Error::from_errno("waitpid");
    if (WIFEXITED(status) || WIFSIGNALED(status)) return Error::msg("tracee ended before stopping with the signal");
    int sig = WSTOPSIG(status);
    if (sig == stop_signal) return pid;
    forward = sig == SIGTRAP ? 0 : sig;  // the exec SIGTRAP is ours
    if (::ptrace(PTRACE_CONT, pid, nullptr, reinterpret_cast<void*>(static_cast<long>(forward))) != 0)
      return Error::from_errno("PTRACE_CONT");
  }
}

Result<std::vector<pid_t>> seize_all_threads(pid_t pid) {
  std::vector<pid_t> tids{pid};
  std::string task = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = ::opendir(task.c_str());
  if (!d) return Error::from_errno("opendir " + task);
  while (dirent* e = ::readdir(d)) {
    pid_t tid = std::atoi(e->d_name);
    if (tid > 0 && tid != pid) tids.push_back(tid);
  }
  ::closedir(d);
  for (pid_t tid : tids) {
    if (::ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) return Error::from_errno("PTRACE_SEIZE");
    if (::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0) return Error::from_errno("PTRACE_INTERRUPT");
    int status = 0;
    if (::waitpid(tid, &status, __WALL) < 0) return Error::from_errno("waitpid");
  }
  return tids;
}

void kill_traced(pid_t pid) {
  ::kill(pid, SIGKILL);
  // Traced threads are reaped by their tracer (__WALL), the leader last.
  for (;;) {
    int status = 0;
    pid_t w = ::waitpid(-1, &status, __WALL);
    if (w < 0) break;
    if (w == pid && (WIFEXITED(status) || WIFSIGNALED(status))) break;
  }
}

}  // namespace slsdbg::dump::testing
