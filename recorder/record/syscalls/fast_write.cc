#include "recorder/record/syscalls/fast_write.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

#include "process/remote_fd.h"
#include "process/syscalls/model.h"

namespace slsdbg::recorder {

using process::find_syscall_model;

namespace {

// Larger writes gain nothing from saving one stop, and the copy is ours.
constexpr uint64_t kMaxBytes = 1 << 20;
constexpr uint64_t kMaxIov = 1024;  // UIO_MAXIOV: the kernel says EINVAL above it
// Every buffer must end below this, so the kernel's access_ok on the
// tracee's pointers could not have failed where ours pass. (The limit is
// TASK_SIZE_MAX, 0x7ffffffff000, exclusive or not depending on the kernel
// version; the page below it is left to the ordinary path.)
constexpr uint64_t kUserTop = 0x7ffffffff000ull - 4096;
// Bounds our own descriptor use; past it the cache starts over.
constexpr size_t kMaxCached = 256;

bool in_user_range(uint64_t addr, uint64_t len) { return addr < kUserTop && len < kUserTop - addr; }

}  // namespace

// Local filesystems, where a write waits for the disk at worst. A network or
// FUSE filesystem could block indefinitely, which only the ordinary path
// (the tracee in the syscall, our tick able to interrupt it) handles.
bool local_filesystem(int fd) {
  struct statfs fs;
  if (fstatfs(fd, &fs) != 0) return false;
  switch (static_cast<unsigned long>(fs.f_type)) {
    case EXT4_SUPER_MAGIC:  // also ext2/ext3
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
    case TMPFS_MAGIC:  // also memfd
    case OVERLAYFS_SUPER_MAGIC:
    case F2FS_SUPER_MAGIC:
      return true;
    default:
      return false;
  }
}

// A finite RLIMIT_FSIZE (the tracee's or ours) makes the outcome of a write
// depend on who issues it (EFBIG and SIGXFSZ to the writer).
bool file_size_unlimited(pid_t pid) {
  struct rlimit theirs, ours;
  if (prlimit(pid, RLIMIT_FSIZE, nullptr, &theirs) != 0 || getrlimit(RLIMIT_FSIZE, &ours) != 0) return false;
  return theirs.rlim_cur == RLIM_INFINITY && ours.rlim_cur == RLIM_INFINITY;
}

FastWrite FastWrite::for_process(pid_t pid) {
  FastWrite f;
  f.pid_ = pid;
  // Without a pidfd pidfd_ stays invalid and every call is declined.
  if (Result<UniqueFd> pidfd = process::open_pidfd(pid); pidfd.ok()) f.pidfd_ = std::move(*pidfd);
  return f;
}

std::optional<FastWrite::Entry> FastWrite::make_entry(int tracee_fd) const {
  Result<UniqueFd> copied = process::copy_fd_from(pidfd_.get(), tracee_fd);
  if (!copied.ok()) return std::nullopt;
  UniqueFd dup = std::move(*copied);
  Entry e;
  struct stat st;
  if (fstat(dup.get(), &st) != 0) return e;
  if (S_ISCHR(st.st_mode)) {
    // /dev/null and /dev/zero: writes succeed at once, lseek returns 0.
    if (st.st_rdev == makedev(1, 3) || st.st_rdev == makedev(1, 5)) {
      e.dup = std::move(dup);
      e.discards = true;
    }
    return e;
  }
  if (!S_ISREG(st.st_mode)) return e;
  const int flags = fcntl(dup.get(), F_GETFL);
  // O_DIRECT's alignment rules apply to the buffer address, which is ours.
  if (flags < 0 || (flags & O_DIRECT)) return e;
  if (!local_filesystem(dup.get()) || !file_size_unlimited(pid_)) return e;
  e.dup = std::move(dup);
  return e;
}

const FastWrite::Entry* FastWrite::entry_for(uint64_t fd_arg) {
  if (!pidfd_.valid() || fd_arg > INT_MAX) return nullptr;
  const int fd = static_cast<int>(fd_arg);
  if (auto it = cache_.find(fd); it != cache_.end()) return &it->second;
  // A closed fd is not remembered: a later open may take its number without
  // any close we would see.
  std::optional<Entry> e = make_entry(fd);
  if (!e) return nullptr;
  if (cache_.size() >= kMaxCached) cache_.clear();
  return &cache_.emplace(fd, std::move(*e)).first->second;
}

bool FastWrite::gather_buffer(uint64_t addr, uint64_t len, const Entry& e) {
  if (len > kMaxBytes || !in_user_range(addr, len)) return false;
  if (buf_.size() < len + 1) buf_.resize(len + 1);
  // write(2) to these checks only that the range is user memory (access_ok,
  // above): an unreadable buffer succeeds natively too. Saves a syscall.
  if (len == 0 || e.discards) return true;
  struct iovec local{buf_.data(), len};
  struct iovec remote{reinterpret_cast<void*>(addr), len};
  return process_vm_readv(pid_, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(len);
}

bool FastWrite::gather_iovec(uint64_t iov_addr, uint64_t iovcnt) {
  if (iovcnt > kMaxIov || !in_user_range(iov_addr, iovcnt * sizeof(struct iovec))) return false;
  std::vector<struct iovec> remote(iovcnt);
  const uint64_t array_bytes = iovcnt * sizeof(struct iovec);
  if (array_bytes != 0) {
    struct iovec local{remote.data(), array_bytes};
    struct iovec from{reinterpret_cast<void*>(iov_addr), array_bytes};
    if (process_vm_readv(pid_, &local, 1, &from, 1, 0) != static_cast<ssize_t>(array_bytes)) return false;
  }
  uint64_t total = 0;
  for (const struct iovec& v : remote) {
    const uint64_t base = reinterpret_cast<uint64_t>(v.iov_base), len = v.iov_len;
    if (len > kMaxBytes || !in_user_range(base, len)) return false;
    total += len;
    if (total > kMaxBytes) return false;
  }
  if (buf_.size() < total + 1) buf_.resize(total + 1);
  if (total != 0) {
    struct iovec local{buf_.data(), total};
    if (process_vm_readv(pid_, &local, 1, remote.data(), iovcnt, 0) != static_cast<ssize_t>(total)) return false;
  }
  iov_.resize(iovcnt);
  uint64_t off = 0;
  for (uint64_t i = 0; i < iovcnt; i++) {
    iov_[i] = {buf_.data() + off, remote[i].iov_len};
    off += remote[i].iov_len;
  }
  return true;
}

std::optional<int64_t> FastWrite::try_perform(long nr, const std::array<uint64_t, 6>& a) {
  if (nr != SYS_write && nr != SYS_pwrite64 && nr != SYS_writev && nr != SYS_pwritev && nr != SYS_lseek)
    return std::nullopt;
  const Entry* e = entry_for(a[0]);
  if (!e || !e->dup.valid()) return std::nullopt;
  const int fd = e->dup.get();
  long r = -1;
  switch (nr) {
    case SYS_write:
      if (!gather_buffer(a[1], a[2], *e)) return std::nullopt;
      r = syscall(SYS_write, fd, buf_.data(), a[2]);
      break;
    case SYS_pwrite64:
      if (!gather_buffer(a[1], a[2], *e)) return std::nullopt;
      r = syscall(SYS_pwrite64, fd, buf_.data(), a[2], a[3]);
      break;
    case SYS_writev:
      if (!gather_iovec(a[1], a[2])) return std::nullopt;
      r = syscall(SYS_writev, fd, iov_.data(), a[2]);
      break;
    case SYS_pwritev:
      if (!gather_iovec(a[1], a[2])) return std::nullopt;
      r = syscall(SYS_pwritev, fd, iov_.data(), a[2], a[3], a[4]);
      break;
    case SYS_lseek:
      r = syscall(SYS_lseek, fd, a[1], a[2]);
      break;
  }
  if (r < 0) {
    // Nothing was written: let the tracee make the call itself.
    if (errno == EINTR) return std::nullopt;
    r = -errno;
  }
  performed_++;
  return static_cast<int64_t>(r);
}

void FastWrite::before_syscall(long nr, const std::array<uint64_t, 6>& a) {
  if (cache_.empty()) return;
  switch (nr) {
    case SYS_close:
      if (a[0] <= INT_MAX) cache_.erase(static_cast<int>(a[0]));
      return;
    case SYS_dup2:
    case SYS_dup3:
      if (a[1] <= INT_MAX) cache_.erase(static_cast<int>(a[1]));
      return;
    case SYS_fcntl:
      // F_SETFL changes the description, which other fds may share (O_DIRECT).
      if (static_cast<int>(a[1]) == F_SETFL) forget_all();
      return;
    case SYS_close_range:
    case SYS_execve:
    case SYS_execveat:
    case SYS_io_uring_enter:
    case SYS_setrlimit:
    case SYS_prlimit64:
      forget_all();
      return;
    default:
      if (!find_syscall_model(nr)) forget_all();
      return;
  }
}

}  // namespace slsdbg::recorder
