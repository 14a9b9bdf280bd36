// FastWrite: the one-stop path for output-free syscalls on files that cannot
// block. For write, pwrite64, writev, pwritev and lseek on a regular file of
// a local filesystem, /dev/null or /dev/zero, the recorder does the call
// itself at the seccomp stop, on its own duplicate of the tracee's fd
// (pidfd_getfd: the open file description, so the offset and O_APPEND, is
// shared), with the bytes read from the tracee by process_vm_readv. The
// caller then skips the tracee's syscall with the result in rax and logs the
// same event the ordinary path would (number, args, result, no memory
// writes), so replay sees no difference. This saves the syscall-exit stop.
//
// Anything unusual (an unreadable buffer, a pipe, socket or tty, O_DIRECT, a
// finite RLIMIT_FSIZE, a network or FUSE filesystem, more than 1 MiB) is
// declined before anything happened, and the ordinary path runs the call.
//
// Duplicates are cached per tracee fd and dropped, before the syscall runs,
// whenever a syscall may close or replace that fd or change the file status
// flags of any description (close, close_range, dup2, dup3, fcntl F_SETFL,
// execve, io_uring_enter, setrlimit/prlimit64, anything unmodelled).
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <array>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "common/fd.h"
#include "common/result.h"

namespace slsdbg::recorder {

// A regular file on a local filesystem (ext4, xfs, btrfs, tmpfs, overlay,
// f2fs): a read or write waits for the disk at worst.
bool local_filesystem(int fd);
// No finite RLIMIT_FSIZE, the tracee's or ours (EFBIG/SIGXFSZ would depend
// on who writes).
bool file_size_unlimited(pid_t pid);

class FastWrite {
 public:
  // Without pidfd_open / pidfd_getfd every call is declined.
  static FastWrite for_process(pid_t pid);

  // Performs syscall `nr` with `args` for the tracee when it qualifies and
  // returns its raw result (-errno on failure). nullopt: declined, nothing
  // was done; the tracee must run the call itself.
  std::optional<int64_t> try_perform(long nr, const std::array<uint64_t, 6>& args);

  // At the seccomp stop of every syscall the tracee runs itself: forgets the
  // duplicates that syscall may invalidate.
  void before_syscall(long nr, const std::array<uint64_t, 6>& args);
  void forget_all() { cache_.clear(); }

  uint64_t performed() const { return performed_; }

 private:
  struct Entry {
    UniqueFd dup;           // invalid: this fd is not eligible (a pipe, a tty, ...)
    bool discards = false;  // /dev/null, /dev/zero: the kernel never reads a write's bytes
  };
  const Entry* entry_for(uint64_t fd_arg);
  // nullopt: `fd` is not open in the tracee (or cannot be copied).
  std::optional<Entry> make_entry(int fd) const;
  // Reads the tracee's iovec array and its buffers into buf_; local iovecs
  // pointing into buf_ in iov_. False: declined.
  bool gather_iovec(uint64_t iov_addr, uint64_t iovcnt);
  bool gather_buffer(uint64_t addr, uint64_t len, const Entry& e);

  pid_t pid_ = -1;
  UniqueFd pidfd_;
  std::unordered_map<int, Entry> cache_;
  std::vector<uint8_t> buf_;
  std::vector<struct iovec> iov_;
  uint64_t performed_ = 0;
};

}  // namespace slsdbg::recorder
