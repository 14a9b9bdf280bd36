// File I/O: read/write families, open/close, seek, pipes, dup, fcntl, ioctl.
#include <asm/termbits.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "process/syscalls/model.h"

namespace slsdbg::process {

namespace {

// The kernel filled `total` bytes across the iovec array, in order.
SyscallClass iovec_outputs(uint64_t iov_addr, uint64_t iovcnt, int64_t total, const RemoteReader& mem,
                           std::vector<OutputRegion>& out) {
  if (total <= 0) return SyscallClass::Modelled;
  if (iovcnt > 1024) return SyscallClass::Unmodelled;
  std::vector<iovec> iov(iovcnt);
  if (!mem.read(iov_addr, iov.data(), iovcnt * sizeof(iovec)).ok()) return SyscallClass::Unmodelled;
  uint64_t left = static_cast<uint64_t>(total);
  for (const iovec& v : iov) {
    if (left == 0) break;
    uint64_t n = std::min<uint64_t>(left, v.iov_len);
    add_region(out, reinterpret_cast<uint64_t>(v.iov_base), n);
    left -= n;
  }
  return SyscallClass::Modelled;
}

SyscallClass buffer_of_result(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (c.result > 0) add_region(out, c.args[1], c.result);
  return SyscallClass::Modelled;
}

SyscallClass readv_like(const SyscallCall& c, const RemoteReader& mem, std::vector<OutputRegion>& out) {
  return iovec_outputs(c.args[1], c.args[2], c.result, mem, out);
}

SyscallClass pipe_fds(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (succeeded(c)) add_region(out, c.args[0], 2 * sizeof(int));
  return SyscallClass::Modelled;
}

SyscallClass fcntl_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  switch (static_cast<int>(c.args[1])) {
    case F_GETLK:
    case F_OFD_GETLK:
      if (succeeded(c)) add_region(out, c.args[2], sizeof(struct flock));
      return SyscallClass::Modelled;
    case F_GETOWN_EX:
      if (succeeded(c)) add_region(out, c.args[2], sizeof(struct f_owner_ex));
      return SyscallClass::Modelled;
    default:
      // Every other command returns its answer in the result only.
      return SyscallClass::Modelled;
  }
}

SyscallClass ioctl_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  const uint64_t arg = c.args[2];
  switch (static_cast<unsigned long>(c.args[1])) {
    case TCGETS:
      if (succeeded(c)) add_region(out, arg, sizeof(struct termios));
      return SyscallClass::Modelled;
    case TCGETS2:
      if (succeeded(c)) add_region(out, arg, sizeof(struct termios2));
      return SyscallClass::Modelled;
    case TIOCGWINSZ:
      if (succeeded(c)) add_region(out, arg, sizeof(struct winsize));
      return SyscallClass::Modelled;
    case TIOCGPGRP:
    case FIONREAD:
    case TIOCGPTN:
      if (succeeded(c)) add_region(out, arg, sizeof(int));
      return SyscallClass::Modelled;
    case TCSETS:
    case TCSETSW:
    case TCSETSF:
    case TIOCSWINSZ:
    case TIOCSPGRP:
    case FIONBIO:
    case FIOCLEX:
    case FIONCLEX:
      return SyscallClass::Modelled;
    default:
      // A request the kernel rejected wrote nothing; any other one might have.
      if (c.result == -ENOTTY || c.result == -EBADF || c.result == -EINVAL) return SyscallClass::Modelled;
      return SyscallClass::Unmodelled;
  }
}

SyscallClass sendfile_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (succeeded(c)) add_region(out, c.args[2], sizeof(int64_t));
  return SyscallClass::Modelled;
}

SyscallClass copy_file_range_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (succeeded(c)) {
    add_region(out, c.args[1], sizeof(int64_t));
    add_region(out, c.args[3], sizeof(int64_t));
  }
  return SyscallClass::Modelled;
}

}  // namespace

void register_file_io_models(std::vector<ModelEntry>& out) {
  out.insert(out.end(), {
      {SYS_read, {"read", buffer_of_result}},
      {SYS_pread64, {"pread64", buffer_of_result}},
      {SYS_readv, {"readv", readv_like}},
      {SYS_preadv, {"preadv", readv_like}},
      {SYS_preadv2, {"preadv2", readv_like}},
      {SYS_write, {"write", no_outputs}},
      {SYS_pwrite64, {"pwrite64", no_outputs}},
      {SYS_writev, {"writev", no_outputs}},
      {SYS_pwritev, {"pwritev", no_outputs}},
      {SYS_pwritev2, {"pwritev2", no_outputs}},
      {SYS_open, {"open", no_outputs}},
      {SYS_openat, {"openat", no_outputs}},
      {SYS_creat, {"creat", no_outputs}},
      {SYS_close, {"close", no_outputs}},
      {SYS_close_range, {"close_range", no_outputs}},
      {SYS_lseek, {"lseek", no_outputs}},
      {SYS_pipe, {"pipe", pipe_fds}},
      {SYS_pipe2, {"pipe2", pipe_fds}},
      {SYS_dup, {"dup", no_outputs}},
      {SYS_dup2, {"dup2", no_outputs}},
      {SYS_dup3, {"dup3", no_outputs}},
      {SYS_fcntl, {"fcntl", fcntl_model}},
      {SYS_ioctl, {"ioctl", ioctl_model}},
      {SYS_fsync, {"fsync", no_outputs}},
      {SYS_fdatasync, {"fdatasync", no_outputs}},
      {SYS_sync, {"sync", no_outputs}},
      {SYS_syncfs, {"syncfs", no_outputs}},
      {SYS_ftruncate, {"ftruncate", no_outputs}},
      {SYS_truncate, {"truncate", no_outputs}},
      {SYS_fallocate, {"fallocate", no_outputs}},
      {SYS_fadvise64, {"fadvise64", no_outputs}},
      {SYS_readahead, {"readahead", no_outputs}},
      {SYS_flock, {"flock", no_outputs}},
      {SYS_sendfile, {"sendfile", sendfile_model}},
      {SYS_copy_file_range, {"copy_file_range", copy_file_range_model}},
      {SYS_memfd_create, {"memfd_create", no_outputs}},
      {SYS_eventfd2, {"eventfd2", no_outputs}},
  });
}

}  // namespace slsdbg::process
