// The fd objects' parsers on what this kernel writes: objects made here,
// read back through process::read_fds as a checkpoint keeps them.
#include "engine/restore/fd_objects.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "process/proc_fds.h"

namespace slsdbg::restore {
namespace {

const store::FdEntry& entry(const std::vector<store::FdEntry>& fds, int fd) {
  for (const auto& e : fds)
    if (e.fd == fd) return e;
  static store::FdEntry none;
  ADD_FAILURE() << "fd " << fd << " not read";
  return none;
}

TEST(FdObjects, ParsedFromThisKernelsFdinfo) {
  const int ev = ::eventfd(0, EFD_SEMAPHORE | EFD_NONBLOCK);
  const uint64_t big = 0x1234567890ull;  // more than eventfd2's 32-bit start
  ASSERT_EQ(::write(ev, &big, 8), 8);
  const int tfd = ::timerfd_create(CLOCK_MONOTONIC, 0);
  itimerspec its{{0, 250000000}, {30, 0}};
  ASSERT_EQ(::timerfd_settime(tfd, 0, &its, nullptr), 0);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigaddset(&set, SIGRTMIN + 2);
  const int sfd = ::signalfd(-1, &set, 0);
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  const int ep = ::epoll_create1(0);
  epoll_event e1{EPOLLIN | EPOLLET, {.u64 = 0xfeedface12345678ull}};
  epoll_event e2{EPOLLOUT | EPOLLONESHOT, {.u64 = 7}};
  ASSERT_EQ(::epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &e1), 0);
  ASSERT_EQ(::epoll_ctl(ep, EPOLL_CTL_ADD, ev, &e2), 0);
  ASSERT_TRUE(ev >= 0 && tfd >= 0 && sfd >= 0 && ep >= 0);

  auto fds = process::read_fds(::getpid());
  ASSERT_TRUE(fds.ok()) << fds.error().message;

  EXPECT_EQ(fd_object_kind(entry(*fds, ev).path), FdObjectKind::Eventfd);
  auto pe = parse_eventfd(entry(*fds, ev).object);
  ASSERT_TRUE(pe.ok()) << pe.error().message;
  EXPECT_EQ(pe->count, big);
  EXPECT_TRUE(pe->semaphore);

  EXPECT_EQ(fd_object_kind(entry(*fds, tfd).path), FdObjectKind::Timerfd);
  auto pt = parse_timerfd(entry(*fds, tfd).object);
  ASSERT_TRUE(pt.ok()) << pt.error().message;
  EXPECT_EQ(pt->clockid, CLOCK_MONOTONIC);
  EXPECT_EQ(pt->ticks, 0u);
  EXPECT_EQ(pt->interval_sec, 0u);
  EXPECT_EQ(pt->interval_nsec, 250000000u);
  EXPECT_TRUE(pt->value_sec == 29 || pt->value_sec == 30) << pt->value_sec;  // time left

  EXPECT_EQ(fd_object_kind(entry(*fds, sfd).path), FdObjectKind::Signalfd);
  auto ps = parse_signalfd_mask(entry(*fds, sfd).object);
  ASSERT_TRUE(ps.ok()) << ps.error().message;
  EXPECT_EQ(*ps, (1ull << (SIGUSR1 - 1)) | (1ull << (SIGRTMIN + 2 - 1)));

  EXPECT_EQ(fd_object_kind(entry(*fds, p[0]).path), FdObjectKind::Pipe);
  EXPECT_EQ(store::fd_object_inode(entry(*fds, p[0]).path), store::fd_object_inode(entry(*fds, p[1]).path));
  EXPECT_TRUE(store::fd_object_inode(entry(*fds, p[0]).path).has_value());
  EXPECT_EQ(entry(*fds, p[0]).object, "");  // not an anonymous-inode object

  EXPECT_EQ(fd_object_kind(entry(*fds, ep).path), FdObjectKind::Epoll);
  auto pr = parse_epoll(entry(*fds, ep).object);
  ASSERT_TRUE(pr.ok()) << pr.error().message;
  ASSERT_EQ(pr->size(), 2u);
  const auto& r1 = (*pr)[0].fd == p[0] ? (*pr)[0] : (*pr)[1];
  const auto& r2 = (*pr)[0].fd == p[0] ? (*pr)[1] : (*pr)[0];
  EXPECT_EQ(r1.fd, p[0]);
  EXPECT_EQ(r1.events & ~uint32_t(EPOLLERR | EPOLLHUP), uint32_t(EPOLLIN | EPOLLET));  // the kernel adds those two
  EXPECT_EQ(r1.data, 0xfeedface12345678ull);
  EXPECT_EQ(r2.fd, ev);
  EXPECT_EQ(r2.events & ~uint32_t(EPOLLERR | EPOLLHUP), uint32_t(EPOLLOUT | EPOLLONESHOT));
  EXPECT_EQ(r2.data, 7u);
  for (int fd : {ev, tfd, sfd, p[0], p[1], ep}) ::close(fd);
}

// A socketpair's ends name each other; a TCP socket has no lines.
TEST(FdObjects, UnixSocketpairEndsNameEachOther) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
  const int tcp = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(tcp, 0);
  auto fds = process::read_fds(::getpid());
  ASSERT_TRUE(fds.ok()) << fds.error().message;
  const auto& a = entry(*fds, sv[0]);
  const auto& b = entry(*fds, sv[1]);
  auto ua = parse_unix_socket(a.object), ub = parse_unix_socket(b.object);
  ASSERT_TRUE(ua.ok() && ub.ok()) << a.object;
  ASSERT_TRUE(ua->has_value() && ub->has_value()) << "'" << a.object << "'";
  EXPECT_EQ((*ua)->type, SOCK_SEQPACKET);
  EXPECT_EQ((*ua)->peer_inode, store::fd_object_inode(b.path));
  EXPECT_EQ((*ub)->peer_inode, store::fd_object_inode(a.path));
  EXPECT_EQ(entry(*fds, tcp).object, "");
  for (int fd : {sv[0], sv[1], tcp}) ::close(fd);
}

// An epoll with more registrations than one 1 KiB read of its fdinfo holds.
TEST(FdObjects, ManyEpollRegistrationsAreAllKept) {
  const int ep = ::epoll_create1(0);
  std::vector<int> evs;
  for (int i = 0; i < 40; i++) {
    evs.push_back(::eventfd(0, 0));
    epoll_event e{EPOLLIN, {.u64 = uint64_t(i)}};
    ASSERT_EQ(::epoll_ctl(ep, EPOLL_CTL_ADD, evs.back(), &e), 0);
  }
  auto fds = process::read_fds(::getpid());
  ASSERT_TRUE(fds.ok()) << fds.error().message;
  auto pr = parse_epoll(entry(*fds, ep).object);
  ASSERT_TRUE(pr.ok()) << pr.error().message;
  EXPECT_EQ(pr->size(), 40u);
  for (int fd : evs) ::close(fd);
  ::close(ep);
}

TEST(FdObjects, MalformedLinesAreErrorsNamingTheLine) {
  EXPECT_FALSE(parse_eventfd("eventfd-id: 3\n").ok());
  auto t = parse_timerfd("clockid: 1\nticks: 0\nit_value: (x, 0)\nit_interval: (0, 0)\n");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("it_value:"), std::string::npos) << t.error().message;
  EXPECT_FALSE(parse_signalfd_mask("").ok());
  auto e = parse_epoll("tfd: x events: 19 data: 0\n");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("tfd: x"), std::string::npos);
  EXPECT_EQ(fd_object_kind("anon_inode:inotify"), FdObjectKind::Other);
  EXPECT_EQ(fd_object_kind("socket:[5]"), FdObjectKind::Socket);
  EXPECT_EQ(store::fd_object_inode("socket:[5]"), 5u);
  EXPECT_FALSE(store::fd_object_inode("anon_inode:[5]").has_value());
  EXPECT_FALSE(parse_unix_socket("unix-type: 1\n").ok());
  auto none = parse_unix_socket("");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  EXPECT_FALSE(store::fd_object_inode("pipe:[12").has_value());
}

}  // namespace
}  // namespace slsdbg::restore
