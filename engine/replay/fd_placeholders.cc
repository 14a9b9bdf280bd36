#include "engine/replay/fd_placeholders.h"

#include <fcntl.h>
#include <sys/syscall.h>

#include <cstring>
#include <string>

#include "common/log.h"
#include "process/inject.h"

namespace slsdbg::replay {

namespace {

// The int pair the kernel wrote at `addr` (pipe's or socketpair's output).
std::vector<int> fd_pair_at(const store::Event& ev, uint64_t addr) {
  for (const store::MemoryWrite& w : ev.writes) {
    if (w.addr != addr || w.bytes.size() < 2 * sizeof(int)) continue;
    int pair[2];
    std::memcpy(pair, w.bytes.data(), sizeof pair);
    return {pair[0], pair[1]};
  }
  return {};
}

}  // namespace

// dup*, fcntl(F_DUPFD) and memfd_create run for real (syscall_policy.cc):
// not listed here.
std::vector<int> created_fds(const store::Event& ev) {
  if (ev.kind != store::EventKind::Syscall || ev.result < 0) return {};
  const int fd = static_cast<int>(ev.result);
  switch (ev.syscall_no) {
    case SYS_pipe: case SYS_pipe2:
      return fd_pair_at(ev, ev.args[0]);
    case SYS_socketpair:
      return fd_pair_at(ev, ev.args[3]);
    case SYS_signalfd: case SYS_signalfd4:
      // signalfd on an existing signalfd changes its mask: nothing new.
      return static_cast<int>(ev.args[0]) == -1 ? std::vector<int>{fd} : std::vector<int>{};
    case SYS_open: case SYS_openat: case SYS_openat2: case SYS_creat: case SYS_open_by_handle_at:
    case SYS_socket: case SYS_accept: case SYS_accept4:
    case SYS_eventfd: case SYS_eventfd2: case SYS_epoll_create: case SYS_epoll_create1:
    case SYS_timerfd_create: case SYS_inotify_init: case SYS_inotify_init1: case SYS_fanotify_init:
    case SYS_pidfd_open: case SYS_pidfd_getfd: case SYS_userfaultfd: case SYS_perf_event_open:
    case SYS_io_uring_setup: case SYS_memfd_secret:
      return {fd};
    default:
      return {};
  }
}

Status install_placeholders(process::Task& task, const std::vector<int>& fds) {
  if (fds.empty()) return ok_status();
  static const char kPath[] = "/dev/null";
  TRY(task.write_memory(RemoteAddr(process::kInjectScratchAddr),
                        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(kPath), sizeof kPath)));
  for (int fd : fds) {
    if (fd < 0) continue;
    const int64_t tmp = TRY(process::inject_syscall(
        task, SYS_openat, {uint64_t(AT_FDCWD), process::kInjectScratchAddr, uint64_t(O_RDWR | O_CLOEXEC), 0, 0, 0}));
    if (tmp < 0) return Error::msg("placeholder for fd " + std::to_string(fd) + ": open /dev/null: " + std::strerror(int(-tmp)));
    if (tmp == fd) continue;
    const int64_t d = TRY(process::inject_syscall(task, SYS_dup3, {uint64_t(tmp), uint64_t(fd), uint64_t(O_CLOEXEC), 0, 0, 0}));
    (void)TRY(process::inject_syscall(task, SYS_close, {uint64_t(tmp), 0, 0, 0, 0, 0}));
    if (d < 0) return Error::msg("placeholder for fd " + std::to_string(fd) + ": dup3: " + std::strerror(int(-d)));
  }
  return ok_status();
}

Result<bool> settle_changed_open(process::Task& task, int64_t nr, int64_t replayed, const store::Event& ev) {
  if (nr != SYS_openat || (replayed < 0) == (ev.result < 0)) return false;
  if (ev.result >= 0) {
    SLSDBG_DEBUG("replay", "openat failed now (%s) but not when recorded: fd %lld is a placeholder",
                 std::strerror(int(-replayed)), static_cast<long long>(ev.result));
    TRY(install_placeholders(task, {static_cast<int>(ev.result)}));
    return true;
  }
  SLSDBG_DEBUG("replay", "openat opened fd %lld now but failed when recorded: closed",
               static_cast<long long>(replayed));
  (void)TRY(process::inject_syscall(task, SYS_close, {uint64_t(replayed), 0, 0, 0, 0, 0}));
  return true;
}

}  // namespace slsdbg::replay
