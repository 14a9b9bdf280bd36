// The descriptors restore creates again that are not files: pipes,
// AF_UNIX socketpairs whose two ends the process holds, eventfds, timerfds,
// signalfds and epoll instances with their registrations, read from the
// path and the lines a checkpoint keeps (store::FdEntry::path and
// ::object; the inode in a pipe's or socket's path: store::fd_object_inode). Pure parsing, unit-tested (fd_objects_test.cc);
// restore_files.cc makes them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace slsdbg::restore {

enum class FdObjectKind { Pipe, Socket, Eventfd, Timerfd, Signalfd, Epoll, Other };

// From readlink's text: "pipe:[123]", "anon_inode:[eventfd]", ...
FdObjectKind fd_object_kind(const std::string& path);

struct EventfdObject {
  uint64_t count = 0;
  bool semaphore = false;
};
struct TimerfdObject {
  int clockid = 0;
  uint64_t ticks = 0;  // expirations not read yet
  uint64_t value_sec = 0, value_nsec = 0;  // time left to the next expiration
  uint64_t interval_sec = 0, interval_nsec = 0;
};
struct UnixSocketObject {
  int type = 0;             // SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET
  uint64_t peer_inode = 0;  // 0: not connected
};
struct EpollRegistration {
  int fd = -1;
  uint32_t events = 0;  // with EPOLLET, EPOLLONESHOT ... as registered
  uint64_t data = 0;
};

// Each fails with a message naming the missing or malformed line.
Result<EventfdObject> parse_eventfd(const std::string& lines);
Result<TimerfdObject> parse_timerfd(const std::string& lines);
Result<uint64_t> parse_signalfd_mask(const std::string& lines);  // bit N-1: signal N
Result<std::vector<EpollRegistration>> parse_epoll(const std::string& lines);
// nullopt for a socket that is not AF_UNIX (no lines were kept).
Result<std::optional<UnixSocketObject>> parse_unix_socket(const std::string& lines);

}  // namespace slsdbg::restore
