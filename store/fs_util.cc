// Filesystem helpers (see fs_util.h).
#include "store/fs_util.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

namespace slsdbg::store {

Status make_dir(const std::string& path) {
  if (::mkdir(path.c_str(), kDirMode) == 0) return ok_status();
  if (errno == EEXIST) return ok_status();
  return Error::from_errno("mkdir " + path);
}

Result<UniqueFd> open_file(const std::string& path, int flags) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC, kFileMode);
  if (fd < 0) return Error::from_errno("open " + path);
  return UniqueFd(fd);
}

Status fsync_dir(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Error::from_errno("open " + path);
  UniqueFd owner(fd);
  if (::fsync(fd) != 0) return Error::from_errno("fsync " + path);
  return ok_status();
}

Status write_all(int fd, const void* data, size_t size, uint64_t offset) {
  auto* p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    ssize_t n = ::pwrite(fd, p, size, offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::from_errno("pwrite");
    }
    p += n;
    size -= size_t(n);
    offset += uint64_t(n);
  }
  return ok_status();
}

Status read_exact(int fd, void* data, size_t size, uint64_t offset, const std::string& what) {
  auto* p = static_cast<uint8_t*>(data);
  while (size > 0) {
    ssize_t n = ::pread(fd, p, size, offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::from_errno("pread " + what);
    }
    if (n == 0) return Error::msg(what + ": file is truncated");
    p += n;
    size -= size_t(n);
    offset += uint64_t(n);
  }
  return ok_status();
}

bool path_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

Result<UniqueFd> lock_file(const std::string& path, LockWait wait, LockKind kind) {
  UniqueFd fd = TRY(open_file(path, O_RDWR | O_CREAT));
  int op = (kind == LockKind::Shared ? LOCK_SH : LOCK_EX) | (wait == LockWait::NoWait ? LOCK_NB : 0);
  while (::flock(fd.get(), op) != 0) {
    if (errno == EINTR) continue;
    return Error::from_errno("flock " + path);
  }
  return fd;
}

std::string extent_path(const std::string& dir, uint32_t extent) {
  char name[32];
  std::snprintf(name, sizeof name, "/pages/%06u.ext", extent);
  return dir + name;
}

std::string event_log_path(const std::string& dir, uint64_t segment) {
  char name[40];
  std::snprintf(name, sizeof name, "/events/%06llu.log", static_cast<unsigned long long>(segment));
  return dir + name;
}

}  // namespace slsdbg::store
