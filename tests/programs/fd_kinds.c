// Opens one descriptor of every kind (directory as dirfd, pipe, socketpair,
// eventfd, epoll, timerfd, signalfd, memfd, pidfd, inotify, a file created
// for writing, dups), interleaved with read-only opens of a real file, uses
// each once, and prints every number it got and what it read. Replay must
// hand out the same numbers: a real read-only open after an emulated
// descriptor-creating call is where numbering used to diverge.
// Usage: fd_kinds DIR   (DIR holds a file "in.txt"; "out.txt" is created)
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

static char dir[4096];

// A real read-only open (replay runs these): its number shows whether the
// table matches the recording.
static int open_in(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s/in.txt", dir);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  char c = 0;
  if (fd >= 0 && read(fd, &c, 1) != 1) c = '?';
  printf("  open in.txt = %d (%c)\n", fd, c);
  return fd;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: fd_kinds DIR\n");
    return 2;
  }
  snprintf(dir, sizeof dir, "%s", argv[1]);
  setvbuf(stdout, NULL, _IONBF, 0);

  // gzip's pattern: the directory as dirfd, then openat relative to it.
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int rel = openat(dfd, "in.txt", O_RDONLY | O_CLOEXEC);
  struct stat st;
  int sr = fstatat(dfd, "in.txt", &st, 0);
  printf("dirfd = %d, openat(dirfd) = %d, fstatat = %d size %lld\n", dfd, rel, sr, (long long)st.st_size);
  DIR* d = opendir(dir);
  printf("opendir fd = %d\n", d ? dirfd(d) : -1);
  int a = open_in();

  // A file created for writing (emulated in replay).
  int out = openat(dfd, "out.txt", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  printf("create out.txt = %d, write = %zd\n", out, write(out, "hello\n", 6));
  int b = open_in();

  int p[2];
  int pr = pipe2(p, O_CLOEXEC);
  char buf[64] = {0};
  ssize_t w = write(p[1], "pipe", 4);
  ssize_t r = read(p[0], buf, sizeof buf);
  printf("pipe2 = %d [%d %d] write %zd read %zd '%.*s'\n", pr, p[0], p[1], w, r, (int)r, buf);
  int c = open_in();

  int sv[2];
  int spr = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
  w = write(sv[0], "sock", 4);
  r = read(sv[1], buf, sizeof buf);
  printf("socketpair = %d [%d %d] read %zd '%.*s'\n", spr, sv[0], sv[1], r, (int)r, buf);
  int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  printf("socket = %d\n", sock);
  int e = open_in();

  int efd = eventfd(3, EFD_CLOEXEC);
  uint64_t v = 4;
  w = write(efd, &v, sizeof v);
  v = 0;
  r = read(efd, &v, sizeof v);
  printf("eventfd = %d value %llu\n", efd, (unsigned long long)v);
  int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 77};
  int ctl = epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev);
  v = 1;
  w = write(efd, &v, sizeof v);
  struct epoll_event got = {0};
  int n = epoll_wait(ep, &got, 1, 1000);
  printf("epoll = %d ctl %d wait %d data %llu\n", ep, ctl, n, (unsigned long long)got.data.u64);
  int f = open_in();

  int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
  struct itimerspec its = {.it_value = {.tv_sec = 0, .tv_nsec = 1000000}};
  int ts = timerfd_settime(tfd, 0, &its, NULL);
  uint64_t ticks = 0;
  r = read(tfd, &ticks, sizeof ticks);
  printf("timerfd = %d settime %d read %zd ticks>0 %d\n", tfd, ts, r, ticks > 0);
  int g = open_in();

  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigprocmask(SIG_BLOCK, &set, NULL);
  int sfd = signalfd(-1, &set, SFD_CLOEXEC);
  kill(getpid(), SIGUSR1);
  struct signalfd_siginfo ssi = {0};
  r = read(sfd, &ssi, sizeof ssi);
  printf("signalfd = %d read %zd signo %u\n", sfd, r, ssi.ssi_signo);
  int h = open_in();

  int mfd = memfd_create("fd_kinds", MFD_CLOEXEC);
  int tr = ftruncate(mfd, 4096);
  char* m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
  if (m != MAP_FAILED) strcpy(m, "memfd");
  char m2[8] = {0};
  r = pread(mfd, m2, 5, 0);
  printf("memfd = %d ftruncate %d mapped %d pread %zd '%s'\n", mfd, tr, m != MAP_FAILED, r, m2);
  int i = open_in();

  int pfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
  printf("pidfd = %d\n", pfd);
  int in = inotify_init1(IN_CLOEXEC);
  int wd = inotify_add_watch(in, dir, IN_CREATE);
  printf("inotify = %d watch %d\n", in, wd);
  int j = open_in();

  int du = dup(out);
  int du2 = dup2(efd, 40);
  int du3 = fcntl(sock, F_DUPFD_CLOEXEC, 50);
  printf("dup = %d dup2 = %d F_DUPFD = %d\n", du, du2, du3);
  close(efd);
  close(p[0]);
  close(sv[1]);
  int k = open_in();
  int l = open_in();
  int last = open_in();
  printf("sum %d\n", dfd + rel + a + b + c + e + f + g + h + i + j + k + l + last);
  return 0;
}
