// The bytes waiting to be read in a tracee's pipe or AF_UNIX stream socket,
// read without taking them (the tracee reads them later as if we had not
// looked): a pipe through a second read end opened from /proc/PID/fd/N and
// tee(2) into a pipe of ours, a socket through a copy of it (pidfd_getfd)
// and recv(MSG_PEEK), datagram by datagram with SO_PEEK_OFF. What restore
// puts back into the pipe or socketpair it makes again.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/result.h"

namespace slsdbg::process {

// More than this stays unread (restore then warns of the rest).
inline constexpr size_t kMaxQueuedBytes = 1 << 20;

// Bytes in the pipe that fd `fd` of `pid` is an end of.
Result<std::string> pipe_queued_bytes(pid_t pid, int fd);
// Bytes waiting in socket `fd` of the process of `pidfd`, of `type`
// (SOCK_STREAM: the bytes; SOCK_DGRAM, SOCK_SEQPACKET: each datagram as a
// u32 little-endian length and its bytes, see datagram_frames).
Result<std::string> socket_queued_bytes(int pidfd, int fd, int type);
// The datagrams of socket_queued_bytes's framing; stops at a torn frame.
std::vector<std::string> datagram_frames(const std::string& queued);

}  // namespace slsdbg::process
