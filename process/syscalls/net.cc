// Sockets: the calls that only return a descriptor or a status. Calls that
// fill buffers or addresses (recvmsg, accept, getsockopt) are left unmodelled
// on purpose: a forced checkpoint after each is correct, if slower.
#include <sys/socket.h>
#include <sys/syscall.h>

#include "process/syscalls/model.h"

namespace slsdbg::process {

namespace {

SyscallClass socketpair_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (succeeded(c)) add_region(out, c.args[3], 2 * sizeof(int));
  return SyscallClass::Modelled;
}

// recvfrom(fd, buf, len, flags, NULL, NULL): bytes into buf only.
SyscallClass recvfrom_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (c.args[4] != 0) return succeeded(c) ? SyscallClass::Unmodelled : SyscallClass::Modelled;
  if (c.result > 0) add_region(out, c.args[1], c.result);
  return SyscallClass::Modelled;
}

}  // namespace

void register_net_models(std::vector<ModelEntry>& out) {
  out.insert(out.end(), {
      {SYS_socket, {"socket", no_outputs}},
      {SYS_socketpair, {"socketpair", socketpair_model}},
      {SYS_connect, {"connect", no_outputs}},
      {SYS_bind, {"bind", no_outputs}},
      {SYS_listen, {"listen", no_outputs}},
      {SYS_shutdown, {"shutdown", no_outputs}},
      {SYS_sendto, {"sendto", no_outputs}},
      {SYS_sendmsg, {"sendmsg", no_outputs}},
      {SYS_setsockopt, {"setsockopt", no_outputs}},
      {SYS_recvfrom, {"recvfrom", recvfrom_model}},
  });
}

}  // namespace slsdbg::process
