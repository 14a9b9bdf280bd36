#include "process/proc_fds.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/fd.h"

namespace slsdbg::process {

namespace {

// "pos:" and "flags:" are the first two lines of every fdinfo file; one
// read() into a stack buffer replaces an ifstream per fd (fds are re-read
// at each checkpoint after fd activity).
Status read_fdinfo(int fdinfo_dir, const char* name, store::FdEntry& e) {
  UniqueFd fd(::openat(fdinfo_dir, name, O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return Error::from_errno(std::string("open(fdinfo/") + name + ")");
  char buf[1024];
  ssize_t n;
  do n = ::read(fd.get(), buf, sizeof buf - 1);
  while (n < 0 && errno == EINTR);
  if (n < 0) return Error::from_errno(std::string("read(fdinfo/") + name + ")");
  buf[n] = 0;
  if (const char* pos = std::strstr(buf, "pos:")) e.offset = std::strtoull(pos + 4, nullptr, 10);
  if (const char* fl = std::strstr(buf, "flags:")) {
    const long flags = std::strtol(fl + 6, nullptr, 8);
    e.fd_flags = (flags & O_CLOEXEC) ? FD_CLOEXEC : 0;
    e.flags = static_cast<int32_t>(flags & ~O_CLOEXEC);
  }
  return ok_status();
}

}  // namespace

Result<std::vector<store::FdEntry>> read_fds(pid_t pid) {
  char base[48];
  std::snprintf(base, sizeof base, "/proc/%d", static_cast<int>(pid));
  const std::string fd_path = std::string(base) + "/fd", info_path = std::string(base) + "/fdinfo";
  UniqueFd info_dir(::open(info_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!info_dir.valid()) return Error::from_errno("open(" + info_path + ")");
  DIR* dir = opendir(fd_path.c_str());
  if (!dir) return Error::from_errno("opendir(" + fd_path + ")");
  const int dfd = dirfd(dir);
  std::vector<store::FdEntry> fds;
  while (dirent* de = readdir(dir)) {
    if (de->d_name[0] == '.') continue;
    store::FdEntry e;
    e.fd = std::atoi(de->d_name);
    char target[4096];
    ssize_t n = readlinkat(dfd, de->d_name, target, sizeof target - 1);
    if (n < 0) continue;  // closed meanwhile
    e.path.assign(target, static_cast<size_t>(n));
    if (!read_fdinfo(info_dir.get(), de->d_name, e).ok()) continue;  // closed meanwhile
    fds.push_back(std::move(e));
  }
  closedir(dir);
  std::sort(fds.begin(), fds.end(), [](const auto& a, const auto& b) { return a.fd < b.fd; });
  return fds;
}

}  // namespace slsdbg::process
