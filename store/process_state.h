// The non-memory part of a checkpoint: what the recorder captures while the
// tracee is stopped and what restore and core dumps read back. Plain data;
// the store serializes it (process_state_codec.h) but knows nothing of ptrace.
#pragma once

#include <sys/user.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/ids.h"
#include "common/result.h"

namespace slsdbg::store {

struct ThreadState {
  Tid tid;
  user_regs_struct regs{};        // general registers incl. fs_base/gs_base, orig_rax
  user_fpregs_struct fpregs{};    // legacy FXSAVE area (NT_FPREGSET)
  std::vector<uint8_t> xsave;     // full XSAVE area as PTRACE_GETREGSET NT_X86_XSTATE returns it
  uint64_t sigmask = 0;           // blocked signals, bit (signo-1)
  uint64_t sigpending = 0;        // thread-directed pending signals
  // A thread stopped inside a blocking syscall is checkpointed as if just
  // before it: regs.rip points at the `syscall` instruction and
  // regs.rax == syscall number. restarted_syscall records that it happened.
  bool restarted_syscall = false;
  // The kernel's clear_child_tid of the thread (set_tid_address, or clone's
  // CLONE_CHILD_CLEARTID): at its exit the kernel writes 0 there and wakes a
  // futex on it (pthread_join waits so). Not readable through ptrace, so the
  // recorder tracks it from the calls. 0: none or unknown (encoding < 3).
  uint64_t clear_child_tid = 0;
  // The thread's alternate signal stack (sigaltstack): where the kernel puts
  // the frame of an SA_ONSTACK handler (Go runs every handler there). Not
  // readable through ptrace; the recorder tracks it from the calls. Flags 2
  // (SS_DISABLE): none, or unknown (encoding < 4).
  uint64_t altstack_sp = 0;
  uint64_t altstack_size = 0;
  int32_t altstack_flags = 2;
  // The thread's robust futex list head (set_robust_list): at its exit the
  // kernel walks it and marks each robust mutex the thread still holds
  // FUTEX_OWNER_DIED, so the next locker gets EOWNERDEAD. Read at each
  // checkpoint with get_robust_list. 0: none, or unknown (encoding < 5).
  uint64_t robust_list_head = 0;
  uint64_t robust_list_len = 0;
};

enum class MappingFlags : uint32_t {
  None = 0,
  Shared = 1u << 0,     // MAP_SHARED (else private)
  Anonymous = 1u << 1,  // no backing file
  Stack = 1u << 2,      // [stack]
  Heap = 1u << 3,       // [heap]
  Vdso = 1u << 4,       // [vdso] / [vvar] / [vsyscall]
};
inline constexpr uint32_t flag(MappingFlags f) { return static_cast<uint32_t>(f); }

struct Mapping {
  uint64_t start = 0;   // page aligned
  uint64_t end = 0;     // exclusive, page aligned
  uint32_t prot = 0;    // PROT_READ | PROT_WRITE | PROT_EXEC
  uint32_t flags = 0;   // MappingFlags bits
  uint64_t file_offset = 0;
  uint64_t dev = 0;
  uint64_t inode = 0;
  std::string path;     // file path, or "[heap]", "[stack]", "[vdso]", "" for anonymous
  std::string build_id; // the file's GNU build-id in hex, "" if none (encoding version 2)
};

struct FdEntry {
  int32_t fd = -1;
  int32_t flags = 0;     // open flags (O_ACCMODE, O_APPEND, O_NONBLOCK, ...) from /proc/PID/fdinfo
  int32_t fd_flags = 0;  // FD_CLOEXEC
  uint64_t offset = 0;
  std::string path;      // readlink of /proc/PID/fd/N ("pipe:[123]", "/dev/null", ...)
  // What restore makes the object again from (encoding version 6): an
  // anonymous-inode object's own fdinfo lines after "ino:" (eventfd-count,
  // epoll's tfd lines, timerfd's clock and times, signalfd's sigmask); an
  // AF_UNIX socket's "unix-type:" and "unix-peer:" (its peer's inode) from
  // sock_diag. Empty for files, pipes and other sockets.
  std::string object;
  // What waited to be read at the checkpoint (encoding version 6): a pipe's
  // bytes (kept on its first end), an AF_UNIX stream socket's, or a
  // datagram socket's datagrams framed by process::socket_queued_bytes.
  std::string queued;
};

// The inode in a pipe's or socket's fd path ("pipe:[123]", "socket:[123]":
// 123), which pairs a pipe's ends and names a socket's peer; nullopt for
// other paths.
inline std::optional<uint64_t> fd_object_inode(const std::string& path) {
  const size_t open = path.find(":[");
  if (open == std::string::npos || (path.compare(0, open, "pipe") != 0 && path.compare(0, open, "socket") != 0))
    return std::nullopt;
  uint64_t ino = 0;
  size_t at = open + 2;
  if (at >= path.size() || path[at] < '0' || path[at] > '9') return std::nullopt;
  for (; at < path.size() && path[at] >= '0' && path[at] <= '9'; at++) ino = ino * 10 + uint64_t(path[at] - '0');
  if (at + 1 != path.size() || path[at] != ']') return std::nullopt;
  return ino;
}

struct SignalAction {
  uint64_t handler = 0;  // SIG_DFL = 0, SIG_IGN = 1, or an address
  uint64_t flags = 0;    // SA_*
  uint64_t restorer = 0;
  uint64_t mask = 0;
};

struct ProcessState {
  int32_t pid = 0;
  std::vector<ThreadState> threads;   // threads[0] is the thread group leader
  std::vector<Mapping> mappings;      // sorted by start, non-overlapping
  std::vector<FdEntry> fds;
  std::array<SignalAction, 64> sigactions{};  // index signo-1
  uint64_t shared_sigpending = 0;     // process-directed pending signals
  uint64_t brk_start = 0;
  uint64_t brk_current = 0;
  std::vector<uint8_t> auxv;          // raw /proc/PID/auxv
  std::string exe;                    // /proc/PID/exe at capture
  std::string cwd;
  std::vector<std::string> cmdline;
  // A crash checkpoint (reason "crash"): the siginfo_t (128 bytes) of the
  // fatal signal about to be delivered at threads[0]'s pc. Empty otherwise.
  // Encoding version 2 and later.
  std::vector<uint8_t> fatal_siginfo;
  // record --threads: the thread that was running (executing the program)
  // when the checkpoint was taken; 0 when every thread waited in a syscall,
  // or unknown (encoding < 3). Replay resumes only this one.
  int32_t running_tid = 0;
};

// Versioned binary encoding of ProcessState (documented in docs/formats/).
std::vector<uint8_t> encode_process_state(const ProcessState& state);
Result<ProcessState> decode_process_state(const uint8_t* data, size_t size);

}  // namespace slsdbg::store
