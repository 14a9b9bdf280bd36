// Readiness: poll, select and epoll write back which descriptors are ready
// (and select/ppoll/pselect6 the time left).
#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>

#include "process/syscalls/model.h"

namespace slsdbg::process {

namespace {

// The kernel writes every revents back also when a signal cut the wait
// (then all zero): EINTR, or a restart the recorder sees as a cut call.
bool wrote_revents(const SyscallCall& c) { return succeeded(c) || c.result == -EINTR; }

SyscallClass poll_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (wrote_revents(c)) add_region(out, c.args[0], c.args[1] * sizeof(struct pollfd));
  return SyscallClass::Modelled;
}

SyscallClass ppoll_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (wrote_revents(c)) add_region(out, c.args[0], c.args[1] * sizeof(struct pollfd));
  add_region(out, c.args[2], sizeof(struct timespec));
  return SyscallClass::Modelled;
}

uint64_t fd_set_bytes(uint64_t nfds) { return ((nfds + 63) / 64) * 8; }

SyscallClass select_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (succeeded(c)) {
    const uint64_t n = fd_set_bytes(c.args[0]);
    for (int i = 1; i <= 3; i++) add_region(out, c.args[i], n);
  }
  add_region(out, c.args[4], c.nr == SYS_select ? sizeof(struct timeval) : sizeof(struct timespec));
  return SyscallClass::Modelled;
}

SyscallClass epoll_wait_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (c.result > 0) add_region(out, c.args[1], c.result * sizeof(struct epoll_event));
  return SyscallClass::Modelled;
}

}  // namespace

void register_poll_models(std::vector<ModelEntry>& out) {
  out.insert(out.end(), {
      {SYS_poll, {"poll", poll_model}},
      {SYS_ppoll, {"ppoll", ppoll_model}},
      {SYS_select, {"select", select_model}},
      {SYS_pselect6, {"pselect6", select_model}},
      {SYS_epoll_create, {"epoll_create", no_outputs}},
      {SYS_epoll_create1, {"epoll_create1", no_outputs}},
      {SYS_epoll_ctl, {"epoll_ctl", no_outputs}},
      {SYS_epoll_wait, {"epoll_wait", epoll_wait_model}},
      {SYS_epoll_pwait, {"epoll_pwait", epoll_wait_model}},
  });
}

}  // namespace slsdbg::process
