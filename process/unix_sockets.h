// AF_UNIX sockets looked up by inode through sock_diag (NETLINK_SOCK_DIAG):
// their type and their peer's inode, which pair the two ends of a
// socketpair held by one process (restore makes such a pair again).
#pragma once

#include <cstdint>
#include <optional>

#include "common/fd.h"
#include "common/result.h"

namespace slsdbg::process {

struct UnixSocketInfo {
  int type = 0;             // SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET
  uint32_t peer_inode = 0;  // 0: not connected
};

// One netlink socket, opened at the first lookup.
class UnixSocketQuery {
 public:
  // nullopt: no AF_UNIX socket has that inode (another family, or closed).
  Result<std::optional<UnixSocketInfo>> lookup(uint64_t inode);

 private:
  UniqueFd netlink_;
};

}  // namespace slsdbg::process
