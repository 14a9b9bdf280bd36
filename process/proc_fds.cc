#include "process/proc_fds.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "common/fd.h"
#include "process/queued_bytes.h"
#include "process/remote_fd.h"
#include "process/unix_sockets.h"

namespace slsdbg::process {

namespace {

// The lines after "ino:" (the object's own: eventfd-count, epoll's tfd
// lines, timerfd's times, signalfd's sigmask), for anonymous-inode objects
// only: files list their locks there, pipes and sockets nothing.
std::string object_lines(const char* info, const std::string& path) {
  if (path.rfind("anon_inode:", 0) != 0) return "";
  const char* ino = std::strstr(info, "\nino:");
  if (!ino) return "";
  const char* rest = std::strchr(ino + 1, '\n');
  return rest ? std::string(rest + 1) : "";
}

// "pos:" and "flags:" are the first two lines of every fdinfo file; one
// read() into a stack buffer replaces an ifstream per fd (fds are re-read
// at each checkpoint after fd activity). An epoll with many registrations
// has more than the buffer holds: the rest is read on.
Status read_fdinfo(int fdinfo_dir, const char* name, store::FdEntry& e) {
  UniqueFd fd(::openat(fdinfo_dir, name, O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return Error::from_errno(std::string("open(fdinfo/") + name + ")");
  char buf[1024];
  std::string more;
  const char* info = buf;
  for (;;) {
    ssize_t n;
    do n = ::read(fd.get(), buf, sizeof buf - 1);
    while (n < 0 && errno == EINTR);
    if (n < 0) return Error::from_errno(std::string("read(fdinfo/") + name + ")");
    if (more.empty() && size_t(n) < sizeof buf - 1) {
      buf[n] = 0;
      break;
    }
    more.append(buf, size_t(n));
    if (n == 0) {
      info = more.c_str();
      break;
    }
  }
  if (const char* pos = std::strstr(info, "pos:")) e.offset = std::strtoull(pos + 4, nullptr, 10);
  if (const char* fl = std::strstr(info, "flags:")) {
    const long flags = std::strtol(fl + 6, nullptr, 8);
    e.fd_flags = (flags & O_CLOEXEC) ? FD_CLOEXEC : 0;
    e.flags = static_cast<int32_t>(flags & ~O_CLOEXEC);
  }
  e.object = object_lines(info, e.path);
  return ok_status();
}

// Sockets looked up per fd read: a server's many connections are not worth
// it (restore makes only socketpairs whose two ends the process holds).
constexpr int kMaxSocketLookups = 64;

// An AF_UNIX socket's lines, "unix-type:" and "unix-peer:" (the peer's
// inode), in the style of fdinfo's.
std::string unix_socket_lines(const UnixSocketInfo& info) {
  return "unix-type: " + std::to_string(info.type) + "\nunix-peer: " + std::to_string(info.peer_inode) + "\n";
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
  UnixSocketQuery sockets;
  int socket_lookups = 0;
  std::set<std::string> pipes_read;  // one end of each pipe holds its bytes
  UniqueFd pidfd;                    // opened for the first stream socket
  while (dirent* de = readdir(dir)) {
    if (de->d_name[0] == '.') continue;
    store::FdEntry e;
    e.fd = std::atoi(de->d_name);
    char target[4096];
    ssize_t n = readlinkat(dfd, de->d_name, target, sizeof target - 1);
    if (n < 0) continue;  // closed meanwhile
    e.path.assign(target, static_cast<size_t>(n));
    if (!read_fdinfo(info_dir.get(), de->d_name, e).ok()) continue;  // closed meanwhile
    // The bytes waiting in pipes and stream sockets; best effort (an fd
    // closed meanwhile, or no pidfd: restore then makes it empty).
    if (e.path.rfind("pipe:", 0) == 0 && pipes_read.insert(e.path).second)
      e.queued = pipe_queued_bytes(pid, e.fd).value_or(std::string());
    const std::optional<uint64_t> socket = e.path.rfind("socket:", 0) == 0 ? store::fd_object_inode(e.path) : std::nullopt;
    if (socket && socket_lookups++ < kMaxSocketLookups)
      if (const auto info = sockets.lookup(*socket).value_or(std::nullopt)) {
        e.object = unix_socket_lines(*info);
        if (!pidfd.valid()) pidfd = open_pidfd(pid).value_or(UniqueFd());
        if (pidfd.valid()) e.queued = socket_queued_bytes(pidfd.get(), e.fd, info->type).value_or(std::string());
      }
    fds.push_back(std::move(e));
  }
  closedir(dir);
  std::sort(fds.begin(), fds.end(), [](const auto& a, const auto& b) { return a.fd < b.fd; });
  return fds;
}

}  // namespace slsdbg::process
