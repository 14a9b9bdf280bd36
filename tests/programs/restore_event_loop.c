// An event loop over every kind of descriptor `slsdbg restore` makes again:
// a pipe, an AF_UNIX datagram socketpair, a semaphore eventfd, a periodic
// timerfd, a signalfd for SIGUSR1, and an epoll watching them (the
// socketpair through a second epoll nested in the first), each registered
// with its own data tag. Each round spins (so the recorder's ticks land
// there, outside the loop's I/O), then feeds every source once and waits
// until epoll has reported each, dispatching on the tag. The eventfd gets 2
// per round and gives 1 per read, so its count grows by one a round: the
// final drain shows whether a restore kept it. Prints one line, the same for
// any checkpoint restored inside a spin; "pid same" says getpid() still
// equals the pid the program saw at its start.
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

enum { TAG_PIPE = 11, TAG_INNER = 22, TAG_EVENT = 33, TAG_TIMER = 44, TAG_SIGNAL = 55, TAG_SOCK = 66 };

static volatile uint64_t sink;

__attribute__((noinline)) static void spin(long n) {
  uint64_t x = sink;
  for (long i = 0; i < n; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
  sink = x;
}

static void die(const char* what) {
  perror(what);
  exit(1);
}

static void watch(int ep, int fd, uint32_t events, uint64_t tag) {
  struct epoll_event ev = {.events = events, .data.u64 = tag};
  if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0) die("epoll_ctl");
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 60;
  const pid_t pid_at_start = getpid();
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  if (sigprocmask(SIG_BLOCK, &usr1, NULL) != 0) die("sigprocmask");
  int p[2], sv[2];
  if (pipe2(p, O_NONBLOCK) != 0) die("pipe2");
  if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, sv) != 0) die("socketpair");
  const int ev = eventfd(0, EFD_SEMAPHORE | EFD_NONBLOCK);
  const int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
  const int sfd = signalfd(-1, &usr1, SFD_NONBLOCK);
  const int outer = epoll_create1(EPOLL_CLOEXEC), inner = epoll_create1(0);
  if (ev < 0 || tfd < 0 || sfd < 0 || outer < 0 || inner < 0) die("making the descriptors");
  struct itimerspec its = {{0, 2000000}, {0, 2000000}};  // every 2 ms
  if (timerfd_settime(tfd, 0, &its, NULL) != 0) die("timerfd_settime");
  watch(outer, p[0], EPOLLIN | EPOLLET, TAG_PIPE);
  watch(outer, inner, EPOLLIN, TAG_INNER);
  watch(outer, ev, EPOLLIN, TAG_EVENT);
  watch(outer, tfd, EPOLLIN, TAG_TIMER);
  watch(outer, sfd, EPOLLIN, TAG_SIGNAL);
  watch(inner, sv[1], EPOLLIN, TAG_SOCK);

  uint64_t piped = 0, datagrams = 0, events = 0, signals = 0, timer_rounds = 0;
  for (int r = 1; r <= rounds; r++) {
    spin(3000000);
    const unsigned char byte = (unsigned char)r;
    const uint64_t two = 2;
    if (write(p[1], &byte, 1) != 1) die("write pipe");
    if (send(sv[0], &r, sizeof r, 0) != sizeof r) die("send");
    if (write(ev, &two, 8) != 8) die("write eventfd");
    if (kill(getpid(), SIGUSR1) != 0) die("kill");
    int seen = 0;  // one bit per source
    // Wakes, not seconds: a process restored inside this loop keeps the
    // recorded start time, and the clock has moved on since the recording.
    int wakes = 0;
    while (seen != 0x1f) {
      struct epoll_event got[8];
      const int n = epoll_wait(outer, got, 8, 5000);
      if (n <= 0 || ++wakes > 2500) {  // the timer alone wakes it every 2 ms: 5 s
        fprintf(stderr, "round %d: epoll_wait %d, seen %#x\n", r, n, seen);
        return 2;
      }
      for (int i = 0; i < n; i++) {
        uint64_t u;
        unsigned char b;
        int d;
        struct signalfd_siginfo si;
        struct epoll_event in;
        switch (got[i].data.u64) {
          case TAG_PIPE:
            while (read(p[0], &b, 1) == 1) piped += b;
            seen |= 1;
            break;
          case TAG_INNER:
            if (epoll_wait(inner, &in, 1, 0) == 1 && in.data.u64 == TAG_SOCK)
              while (recv(sv[1], &d, sizeof d, 0) == sizeof d) datagrams += (uint64_t)d;
            seen |= 2;
            break;
          case TAG_EVENT:
            if (read(ev, &u, 8) == 8) events += u;
            seen |= 4;
            break;
          case TAG_TIMER:
            if (read(tfd, &u, 8) == 8 && !(seen & 8)) timer_rounds++;
            seen |= 8;
            break;
          case TAG_SIGNAL:
            while (read(sfd, &si, sizeof si) == sizeof si) signals += si.ssi_signo == SIGUSR1;
            seen |= 16;
            break;
          default:
            fprintf(stderr, "round %d: unknown tag %llu\n", r, (unsigned long long)got[i].data.u64);
            return 3;
        }
      }
    }
  }
  uint64_t left = 0, u;
  while (read(ev, &u, 8) == 8) left += u;
  printf("event loop: %d rounds, pipe %llu, datagrams %llu, eventfd %llu then %llu left, signals %llu, timer %llu, pid %s\n",
         rounds, (unsigned long long)piped, (unsigned long long)datagrams, (unsigned long long)events,
         (unsigned long long)left, (unsigned long long)signals, (unsigned long long)timer_rounds,
         getpid() == pid_at_start ? "same" : "changed");
  return 0;
}
