#include "process/unix_sockets.h"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace slsdbg::process {

Result<std::optional<UnixSocketInfo>> UnixSocketQuery::lookup(uint64_t inode) {
  if (inode > UINT32_MAX) return std::optional<UnixSocketInfo>{};
  if (!netlink_.valid()) {
    netlink_ = UniqueFd(::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG));
    if (!netlink_.valid()) return Error::from_errno("socket(NETLINK_SOCK_DIAG)");
  }
  struct {
    nlmsghdr header;
    unix_diag_req request;
  } ask{};
  ask.header.nlmsg_len = sizeof ask;
  ask.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  ask.header.nlmsg_flags = NLM_F_REQUEST;
  ask.request.sdiag_family = AF_UNIX;
  ask.request.udiag_states = ~0u;
  ask.request.udiag_ino = uint32_t(inode);
  ask.request.udiag_show = UDIAG_SHOW_PEER;
  ask.request.udiag_cookie[0] = ask.request.udiag_cookie[1] = ~0u;  // any
  ssize_t n;
  do n = ::send(netlink_.get(), &ask, sizeof ask, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0) return Error::from_errno("sock_diag request");
  alignas(nlmsghdr) char reply[8192];
  do n = ::recv(netlink_.get(), reply, sizeof reply, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0) return Error::from_errno("sock_diag reply");
  for (auto* h = reinterpret_cast<nlmsghdr*>(reply); NLMSG_OK(h, size_t(n)); h = NLMSG_NEXT(h, n)) {
    if (h->nlmsg_type == NLMSG_ERROR) {
      const int err = -reinterpret_cast<nlmsgerr*>(NLMSG_DATA(h))->error;
      if (err == ENOENT) return std::optional<UnixSocketInfo>{};
      return Error::msg(std::string("sock_diag: ") + std::strerror(err));
    }
    if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY || h->nlmsg_len < NLMSG_LENGTH(sizeof(unix_diag_msg))) continue;
    const auto* msg = reinterpret_cast<const unix_diag_msg*>(NLMSG_DATA(h));
    if (msg->udiag_ino != inode) continue;
    UnixSocketInfo info;
    info.type = msg->udiag_type;
    int left = int(h->nlmsg_len - NLMSG_LENGTH(sizeof *msg));
    for (auto* a = reinterpret_cast<const rtattr*>(msg + 1); RTA_OK(a, left); a = RTA_NEXT(a, left))
      if (a->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(a) >= sizeof(uint32_t))
        std::memcpy(&info.peer_inode, RTA_DATA(a), sizeof(uint32_t));
    return std::optional<UnixSocketInfo>{info};
  }
  return std::optional<UnixSocketInfo>{};
}

}  // namespace slsdbg::process
