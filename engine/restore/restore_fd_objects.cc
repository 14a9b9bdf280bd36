// The descriptors of a checkpoint that are not files, made again at their
// recorded numbers (engine/restore/README.md): pipes and AF_UNIX
// socketpairs with the bytes that waited in them, eventfds, timerfds,
// signalfds, then epoll instances and their registrations. What cannot be
// made is reported, one warning each.
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "engine/restore/fd_objects.h"
#include "engine/restore/restore_steps.h"
#include "process/queued_bytes.h"

namespace slsdbg::restore {

namespace {

// Moves a descriptor the tracee just made (`made`: the lowest free number,
// which may be one still to be restored) to the recorded number, with the
// recorded close-on-exec flag and O_NONBLOCK.
Status place(RemoteCalls& rc, int64_t made, const store::FdEntry& e) {
  const bool cloexec = (e.fd_flags & FD_CLOEXEC) != 0;
  if (made != e.fd) {
    TRY(rc.call("dup3", SYS_dup3, uint64_t(made), uint64_t(e.fd), cloexec ? uint64_t(O_CLOEXEC) : 0));
  } else {
    TRY(rc.call("fcntl", SYS_fcntl, uint64_t(e.fd), F_SETFD, cloexec ? FD_CLOEXEC : 0));
  }
  TRY(rc.call("fcntl", SYS_fcntl, uint64_t(e.fd), F_SETFL, uint64_t(e.flags & O_NONBLOCK)));
  return ok_status();
}

// A descriptor the tracee made, moved above every recorded number so that
// placing it cannot close one made for another entry (a pipe's two ends).
Result<int64_t> above(RemoteCalls& rc, int64_t made, int floor) {
  const int64_t high = TRY(rc.call("fcntl", SYS_fcntl, uint64_t(made), F_DUPFD_CLOEXEC, uint64_t(floor)));
  TRY(rc.call("close", SYS_close, uint64_t(made)));
  return high;
}

// Makes the object of `e` (an eventfd, timerfd or signalfd) at its number;
// false (with a warning) when its recorded state cannot be read.
Result<bool> make_single(RemoteCalls& rc, const store::FdEntry& e, FdObjectKind kind, RestoreReport& report) {
  rc.reset_scratch();
  int64_t made = -1;
  std::string why;
  if (kind == FdObjectKind::Eventfd) {
    auto ev = parse_eventfd(e.object);
    if (!ev.ok()) {
      why = ev.error().message;
    } else {
      // eventfd2's initial count is 32 bits; the 64-bit one goes in by write.
      made = TRY(rc.call("eventfd2", SYS_eventfd2, 0, uint64_t(O_CLOEXEC | (ev->semaphore ? EFD_SEMAPHORE : 0))));
      if (ev->count != 0) {
        const uint64_t count = TRY(rc.put({reinterpret_cast<const uint8_t*>(&ev->count), 8}));
        TRY(rc.call("write", SYS_write, uint64_t(made), count, 8));
      }
    }
  } else if (kind == FdObjectKind::Timerfd) {
    auto t = parse_timerfd(e.object);
    if (!t.ok()) {
      why = t.error().message;
    } else {
      made = TRY(rc.call("timerfd_create", SYS_timerfd_create, uint64_t(t->clockid), uint64_t(TFD_CLOEXEC)));
      itimerspec its{};
      its.it_interval = {time_t(t->interval_sec), long(t->interval_nsec)};
      its.it_value = {time_t(t->value_sec), long(t->value_nsec)};
      // Expirations not read yet: the timer fires at once, so that a read
      // sees one (the kernel cannot be given the count).
      if (t->ticks > 0) {
        its.it_value = {0, 1};
        if (t->ticks > 1)
          report.warnings.push_back(fd_label(e) + ": " + std::to_string(t->ticks) +
                                    " unread expirations restored as one");
      }
      const uint64_t spec = TRY(rc.put({reinterpret_cast<const uint8_t*>(&its), sizeof its}));
      TRY(rc.call("timerfd_settime", SYS_timerfd_settime, uint64_t(made), 0, spec, 0));
    }
  } else {
    auto mask = parse_signalfd_mask(e.object);
    if (!mask.ok()) {
      why = mask.error().message;
    } else {
      const uint64_t m = TRY(rc.put({reinterpret_cast<const uint8_t*>(&*mask), 8}));
      made = TRY(rc.call("signalfd4", SYS_signalfd4, uint64_t(-1), m, 8, uint64_t(O_CLOEXEC)));
    }
  }
  if (made < 0) {
    report.warnings.push_back(fd_label(e) + " not restored: " + why);
    return false;
  }
  TRY(place(rc, made, e));
  if (made != e.fd) TRY(rc.call("close", SYS_close, uint64_t(made)));
  return true;
}

// A pipe (pipe2) or an AF_UNIX socketpair of `socket_type`, both ends
// above every recorded number.
Result<std::array<int64_t, 2>> make_pair(RemoteCalls& rc, int socket_type, int floor) {
  rc.reset_scratch();
  const int32_t none[2] = {-1, -1};
  const uint64_t pair = TRY(rc.put({reinterpret_cast<const uint8_t*>(none), sizeof none}));
  if (socket_type == 0) {
    TRY(rc.call("pipe2", SYS_pipe2, pair, uint64_t(O_CLOEXEC)));
  } else {
    TRY(rc.call("socketpair", SYS_socketpair, AF_UNIX, uint64_t(socket_type | SOCK_CLOEXEC), 0, pair));
  }
  int32_t made[2];
  TRY(rc.task().read_memory(RemoteAddr(pair), {reinterpret_cast<uint8_t*>(made), sizeof made}));
  return std::array<int64_t, 2>{TRY(above(rc, made[0], floor)), TRY(above(rc, made[1], floor))};
}

// Writes bytes the checkpoint found waiting in a pipe or stream socket
// into the end `into` of the pair made again, so that the other end reads
// them first; never waits (a full buffer is warned about).
Status put_back(RemoteCalls& rc, int64_t into, bool socket, const std::string& bytes, const std::string& name,
                RestoreReport& report) {
  if (bytes.empty()) return ok_status();
  if (!socket) {
    TRY(rc.call("fcntl", SYS_fcntl, uint64_t(into), F_SETFL, uint64_t(O_NONBLOCK)));
    if (bytes.size() > 65536) TRY(rc.raw(SYS_fcntl, uint64_t(into), F_SETPIPE_SZ, uint64_t(bytes.size())));
  }
  constexpr size_t kChunk = kScratchSize / 2;
  size_t done = 0;
  while (done < bytes.size()) {
    rc.reset_scratch();
    const size_t n = std::min(kChunk, bytes.size() - done);
    const uint64_t from = TRY(rc.put({reinterpret_cast<const uint8_t*>(bytes.data()) + done, n}));
    const int64_t r = socket ? TRY(rc.raw(SYS_sendto, uint64_t(into), from, n, uint64_t(MSG_DONTWAIT), 0, 0))
                             : TRY(rc.raw(SYS_write, uint64_t(into), from, n));
    if (r <= 0) break;
    done += size_t(r);
  }
  if (done < bytes.size())
    report.warnings.push_back(name + ": " + std::to_string(bytes.size() - done) + " of " +
                              std::to_string(bytes.size()) + " waiting bytes not put back");
  return ok_status();
}

// The datagrams that waited at a datagram socket, sent one by one from its
// peer's end `into` (process::socket_queued_bytes's framing).
Status put_back_datagrams(RemoteCalls& rc, int64_t into, const std::string& queued, const std::string& name,
                          RestoreReport& report) {
  const auto frames = process::datagram_frames(queued);
  size_t sent = 0;
  for (const auto& d : frames) {
    rc.reset_scratch();
    if (d.size() > kScratchSize) break;
    const uint64_t from = TRY(rc.put({reinterpret_cast<const uint8_t*>(d.data()), d.size()}));
    if (TRY(rc.raw(SYS_sendto, uint64_t(into), from, d.size(), uint64_t(MSG_DONTWAIT), 0, 0)) < 0) break;
    sent++;
  }
  if (sent < frames.size())
    report.warnings.push_back(name + ": " + std::to_string(frames.size() - sent) + " of " +
                              std::to_string(frames.size()) + " waiting datagrams not put back");
  return ok_status();
}

// Places each end of a pair made by make_pair at its recorded numbers
// (dups of an end share it), then closes the made ones.
Status place_pair(RemoteCalls& rc, const std::array<int64_t, 2>& made,
                  const std::array<std::vector<const store::FdEntry*>, 2>& ends) {
  for (int i = 0; i < 2; i++)
    for (const auto* e : ends[i]) TRY(place(rc, made[i], *e));
  for (int64_t fd : made) TRY(rc.call("close", SYS_close, uint64_t(fd)));
  return ok_status();
}

// One pipe: its ends among the recorded descriptors, with the bytes that
// waited in it. An end not among them was closed, or is another process's:
// reads then see end of file, writes EPIPE, as they would if it was closed.
Status make_pipe(RemoteCalls& rc, const std::vector<const store::FdEntry*>& fds, int floor, RestoreReport& report) {
  std::array<std::vector<const store::FdEntry*>, 2> ends;  // read, write
  std::string queued;  // kept on one of its ends
  for (const auto* e : fds) {
    ends[(e->flags & O_ACCMODE) == O_WRONLY ? 1 : 0].push_back(e);
    if (!e->queued.empty()) queued = e->queued;
  }
  const auto made = TRY(make_pair(rc, 0, floor));
  TRY(put_back(rc, made[1], false, queued, fd_label(*fds.front()), report));
  TRY(place_pair(rc, made, ends));
  if (ends[0].empty() || ends[1].empty())
    report.warnings.push_back(fd_label(*fds.front()) + ": its " + (ends[0].empty() ? "read" : "write") +
                              " end is not in the process: " +
                              (ends[0].empty() ? "writes fail (EPIPE)" : "reads see end of file"));
  return ok_status();
}

// AF_UNIX sockets by inode: the pairs whose two ends the process holds are
// made again (connected, with what waited at each end); the others are
// reported.
Status make_socketpairs(RemoteCalls& rc, const std::map<uint64_t, std::vector<const store::FdEntry*>>& sockets,
                        int floor, RestoreReport& report) {
  // The peer inode a socket's lines name, 0 when none can be read.
  auto peer_of = [](const store::FdEntry& e, int* type) -> uint64_t {
    auto parsed = parse_unix_socket(e.object);
    if (!parsed.ok() || !parsed->has_value()) return 0;
    if (type) *type = (*parsed)->type;
    return (*parsed)->peer_inode;
  };
  for (const auto& [ino, fds] : sockets) {
    int type = 0;
    const uint64_t peer_ino = peer_of(*fds.front(), &type);
    const auto peer = sockets.find(peer_ino);
    std::string why;
    if (auto parsed = parse_unix_socket(fds.front()->object); !parsed.ok())
      why = parsed.error().message;
    else if (!parsed->has_value())
      why = "not an AF_UNIX socket";
    else if (peer_ino == 0)
      why = "an AF_UNIX socket that is not connected";
    else if (peer == sockets.end() || peer_of(*peer->second.front(), nullptr) != ino)
      why = "its peer is not in the process";
    if (!why.empty()) {
      for (const auto* e : fds) report.warnings.push_back(fd_label(*e) + " not restored: " + why);
      continue;
    }
    if (peer_ino < ino) continue;  // made with its peer
    const auto made = TRY(make_pair(rc, type, floor));
    // What waited at one end is sent from the other.
    for (int end = 0; end < 2; end++) {
      const store::FdEntry& at = end == 0 ? *fds.front() : *peer->second.front();
      if (type == SOCK_STREAM) {
        TRY(put_back(rc, made[1 - end], true, at.queued, fd_label(at), report));
      } else {
        TRY(put_back_datagrams(rc, made[1 - end], at.queued, fd_label(at), report));
      }
    }
    TRY(place_pair(rc, made, {fds, peer->second}));
  }
  return ok_status();
}

// Epoll instances once every other descriptor is back: made first, then
// registered (an epoll may watch another).
Status make_epolls(RemoteCalls& rc, const std::vector<const store::FdEntry*>& epolls, RestoreReport& report) {
  std::vector<std::vector<EpollRegistration>> regs;
  for (const auto* e : epolls) {
    rc.reset_scratch();
    const int64_t made = TRY(rc.call("epoll_create1", SYS_epoll_create1, uint64_t(EPOLL_CLOEXEC)));
    TRY(place(rc, made, *e));
    if (made != e->fd) TRY(rc.call("close", SYS_close, uint64_t(made)));
    auto parsed = parse_epoll(e->object);
    if (!parsed.ok()) report.warnings.push_back(fd_label(*e) + ": registrations not restored: " + parsed.error().message);
    regs.push_back(parsed.ok() ? *parsed : std::vector<EpollRegistration>{});
  }
  for (size_t i = 0; i < epolls.size(); i++)
    for (const auto& r : regs[i]) {
      rc.reset_scratch();
      epoll_event ev{};
      ev.events = r.events;
      ev.data.u64 = r.data;
      const uint64_t remote = TRY(rc.put({reinterpret_cast<const uint8_t*>(&ev), sizeof ev}));
      const int64_t res = TRY(rc.raw(SYS_epoll_ctl, uint64_t(epolls[i]->fd), EPOLL_CTL_ADD, uint64_t(r.fd), remote));
      if (res < 0)
        report.warnings.push_back(fd_label(*epolls[i]) + ": watch of fd " + std::to_string(r.fd) +
                                  " not restored: epoll_ctl: " + std::strerror(int(-res)));
    }
  return ok_status();
}

}  // namespace

Status make_fd_objects(RemoteCalls& rc, const store::ProcessState& state, RestoreReport& report) {
  int floor = 3;
  for (const auto& e : state.fds) floor = std::max(floor, e.fd + 1);
  std::map<uint64_t, std::vector<const store::FdEntry*>> pipes, sockets;  // by inode, in fd order
  std::vector<const store::FdEntry*> epolls;
  for (const auto& e : state.fds) {
    if (e.fd <= 2) continue;
    const FdObjectKind kind = fd_object_kind(e.path);
    if (kind == FdObjectKind::Pipe || kind == FdObjectKind::Socket) {
      if (auto ino = store::fd_object_inode(e.path)) (kind == FdObjectKind::Pipe ? pipes : sockets)[*ino].push_back(&e);
      else report.warnings.push_back(fd_label(e) + " not restored: no inode in its name");
    } else if (kind == FdObjectKind::Epoll) {
      epolls.push_back(&e);
    } else if (kind != FdObjectKind::Other) {
      TRY(make_single(rc, e, kind, report));
    }
  }
  for (const auto& [ino, ends] : pipes) TRY(make_pipe(rc, ends, floor, report));
  TRY(make_socketpairs(rc, sockets, floor, report));
  return make_epolls(rc, epolls, report);
}

}  // namespace slsdbg::restore
