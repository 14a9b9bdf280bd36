// cwd and the fd table. Descriptors 0-2 stay those the restorer inherited
// (the restored program writes to the terminal or files of whoever restores
// it). Every other recorded descriptor naming a file is reopened with its
// recorded flags and moved to its offset; pipes, socketpairs, eventfds,
// timerfds, signalfds and epoll instances are made again
// (restore_fd_objects.cc); other sockets and anon-inode objects cannot be
// and are reported.
#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>

#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "engine/restore/fd_objects.h"
#include "engine/restore/restore_steps.h"

namespace slsdbg::restore {

namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// Why a recorded descriptor cannot be reopened, or "" when it can.
std::string why_not_reopenable(const store::FdEntry& e) {
  if (starts_with(e.path, "pipe:")) return "pipes cannot be reopened";  // replay's numbering only
  if (starts_with(e.path, "socket:")) return "sockets cannot be reopened";
  if (starts_with(e.path, "anon_inode:")) return "objects of this kind are not made again";
  if (e.path.size() > 10 && e.path.compare(e.path.size() - 10, 10, " (deleted)") == 0)
    return "the file was deleted";
  if (e.path.empty() || e.path[0] != '/') return "not a file path";
  return "";
}

Result<std::set<int>> open_fds(pid_t pid) {
  std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return Error::from_errno("opendir " + dir);
  std::set<int> fds;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    fds.insert(std::atoi(e->d_name));
  }
  ::closedir(d);
  return fds;
}

// The recorded open flags, without those that would change the file.
int reopen_flags(const store::FdEntry& e) {
  return e.flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_NOCTTY | O_CLOEXEC);
}

// Opens `path` in the tracee as descriptor `fd` (close-on-exec as asked;
// the temporary descriptor is always close-on-exec): 0, or the open's
// negative errno.
Result<int64_t> open_as(RemoteCalls& rc, const std::string& path, int flags, int fd, bool cloexec) {
  rc.reset_scratch();
  uint64_t remote_path = TRY(rc.put_string(path));
  int64_t tmp = TRY(rc.raw(SYS_openat, uint64_t(AT_FDCWD), remote_path, uint64_t(flags | O_CLOEXEC), 0));
  if (tmp < 0) return tmp;
  if (tmp != fd) {
    TRY(rc.call("dup3", SYS_dup3, uint64_t(tmp), uint64_t(fd), cloexec ? uint64_t(O_CLOEXEC) : 0));
    TRY(rc.call("close", SYS_close, uint64_t(tmp)));
  } else if (!cloexec) {
    TRY(rc.call("fcntl", SYS_fcntl, uint64_t(fd), F_SETFD, 0));
  }
  return 0;
}

Status restore_cwd(RemoteCalls& rc, const store::ProcessState& state, RestoreReport& report) {
  if (state.cwd.empty()) return ok_status();
  rc.reset_scratch();
  uint64_t path = TRY(rc.put_string(state.cwd));
  int64_t r = TRY(rc.raw(SYS_chdir, path));
  if (r < 0) report.warnings.push_back("cwd " + state.cwd + " not restored: chdir: " + std::strerror(int(-r)));
  return ok_status();
}

}  // namespace

// Replay: every recorded descriptor number is open and no other, so the
// program's next open/dup/pipe gets the number it got when recorded. What a
// descriptor refers to matters less (replay emulates reads and writes from
// the log): files are reopened where possible, the rest is /dev/null, and
// descriptors 0-2 the restorer inherited stay.
Status restore_fd_numbers(RemoteCalls& rc, const store::ProcessState& state, RestoreReport& report) {
  TRY(restore_cwd(rc, state, report));
  std::set<int> recorded;
  for (const auto& e : state.fds) recorded.insert(e.fd);
  std::set<int> inherited;
  std::vector<RemoteCalls::Queued> closes;  // in one stop
  for (int fd : TRY(open_fds(rc.task().tgid()))) {
    if (fd <= 2 && recorded.count(fd)) {
      inherited.insert(fd);
    } else {
      closes.push_back({"close", {SYS_close, {uint64_t(fd), 0, 0, 0, 0, 0}}});
    }
  }
  TRY(rc.batch(closes));
  for (const auto& e : state.fds) {
    const bool cloexec = (e.fd_flags & FD_CLOEXEC) != 0;
    if (inherited.count(e.fd)) {
      TRY(rc.call("fcntl", SYS_fcntl, uint64_t(e.fd), F_SETFD, cloexec ? FD_CLOEXEC : 0));
      continue;
    }
    int64_t r = why_not_reopenable(e).empty() ? TRY(open_as(rc, e.path, reopen_flags(e), e.fd, cloexec)) : -1;
    if (r < 0) r = TRY(open_as(rc, "/dev/null", O_RDWR, e.fd, cloexec));
    if (r < 0) return Error::msg("open /dev/null for fd " + std::to_string(e.fd) + ": " + std::strerror(int(-r)));
  }
  return ok_status();
}

Status restore_files(RemoteCalls& rc, const store::ProcessState& state, RestoreReport& report) {
  TRY(restore_cwd(rc, state, report));

  std::vector<RemoteCalls::Queued> closes;  // in one stop
  for (int fd : TRY(open_fds(rc.task().tgid())))
    if (fd > 2) closes.push_back({"close", {SYS_close, {uint64_t(fd), 0, 0, 0, 0, 0}}});
  TRY(rc.batch(closes));

  for (const auto& e : state.fds) {
    if (e.fd <= 2 || fd_object_kind(e.path) != FdObjectKind::Other) continue;  // made below
    std::string why = why_not_reopenable(e);
    if (!why.empty()) {
      report.warnings.push_back(fd_label(e) + " not restored: " + why);
      continue;
    }
    int64_t opened = TRY(open_as(rc, e.path, reopen_flags(e), e.fd, (e.fd_flags & FD_CLOEXEC) != 0));
    if (opened < 0) {
      report.warnings.push_back(fd_label(e) + " not restored: open: " + std::strerror(int(-opened)));
      continue;
    }
    if (!(e.flags & O_APPEND) && e.offset != 0) {
      int64_t r = TRY(rc.raw(SYS_lseek, uint64_t(e.fd), e.offset, SEEK_SET));
      if (r < 0) report.warnings.push_back(fd_label(e) + " offset not restored: lseek: " + std::strerror(int(-r)));
    }
  }
  return make_fd_objects(rc, state, report);
}

}  // namespace slsdbg::restore
