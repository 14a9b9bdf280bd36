/* A thread sleeps 100 ms in one of several ways (argv[1]) while the main
 * thread spins until it wakes: every tick of the recorder cuts the sleep
 * (a group checkpoint stops every thread). A cut relative sleep issued
 * again would wait its whole timeout from each tick, longer than the
 * interval: it never ended. Waits that fail with EINTR on any stop (epoll,
 * sigwait, and with a timeout behind a pointer: sigtimedwait, epoll_pwait2)
 * must not see the ticks either. Prints how the thread slept and for how
 * long. */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NAP_NS 100000000L

static volatile int woke;
static volatile double started; /* when the thread began its sleep */
static int interrupted;  /* the call failed with EINTR: no signal was sent */
static const char *kind;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static struct timespec in_nap(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  t.tv_nsec += NAP_NS;
  if (t.tv_nsec >= 1000000000L) {
    t.tv_sec++;
    t.tv_nsec -= 1000000000L;
  }
  return t;
}

static int nap(void) {
  if (!strcmp(kind, "usleep")) return usleep(NAP_NS / 1000);
  if (!strcmp(kind, "poll")) return poll(NULL, 0, NAP_NS / 1000000);
  if (!strcmp(kind, "select")) {
    struct timeval tv = {0, NAP_NS / 1000};
    return select(0, NULL, NULL, NULL, &tv);
  }
  if (!strcmp(kind, "futex")) {
    int word = 0;
    struct timespec ts = {0, NAP_NS};
    return (int)syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
  }
  if (!strcmp(kind, "cond")) {
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    struct timespec until = in_nap(CLOCK_REALTIME);
    pthread_mutex_lock(&m);
    int r = pthread_cond_timedwait(&c, &m, &until);
    pthread_mutex_unlock(&m);
    return r;
  }
  if (!strcmp(kind, "abs")) {
    struct timespec until = in_nap(CLOCK_MONOTONIC);
    return clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL);
  }
  if (!strcmp(kind, "epoll") || !strcmp(kind, "epoll_pwait")) {
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev;
    int r = !strcmp(kind, "epoll") ? epoll_wait(ep, &ev, 1, NAP_NS / 1000000)
                                   : epoll_pwait(ep, &ev, 1, NAP_NS / 1000000, NULL);
    close(ep);
    return r;
  }
  if (!strcmp(kind, "sigtimedwait")) {
    /* Nobody sends SIGUSR1 (blocked): it times out, EAGAIN. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    struct timespec ts = {0, NAP_NS};
    return sigtimedwait(&set, NULL, &ts) < 0 && errno == EAGAIN ? 0 : -1;
  }
  if (!strcmp(kind, "epoll_pwait2")) {
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev;
    struct timespec ts = {0, NAP_NS};
    int r = (int)syscall(SYS_epoll_pwait2, ep, &ev, 1, &ts, NULL, 8);
    close(ep);
    return r;
  }
  if (!strcmp(kind, "sigwait")) {
    /* No timeout: the main thread sends SIGUSR1 after 100 ms of spinning. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    /* sigwaitinfo, not sigwait: glibc's sigwait hides EINTR. */
    return sigwaitinfo(&set, NULL) == SIGUSR1 ? 0 : -1;
  }
  return -2;
}

static void *sleeper(void *arg) {
  double *took = arg;
  double t0 = now();
  started = t0;
  int r = nap();
  if (r == -2) *took = -1;
  else *took = now() - t0;
  if (r == -1 && errno == EINTR) interrupted = 1;
  woke = 1;
  return NULL;
}

int main(int argc, char **argv) {
  kind = argc > 1 ? argv[1] : "usleep";
  double took = 0;
  unsigned long spins = 0;
  pthread_t t;
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, NULL); /* sigwait's, inherited by the thread */
  int sent = strcmp(kind, "sigwait") != 0;
  pthread_create(&t, NULL, sleeper, &took);
  while (!woke) {
    spins++;
    if (!sent && started > 0 && now() - started >= NAP_NS / 1e9) sent = pthread_kill(t, SIGUSR1) == 0;
  }
  pthread_join(t, NULL);
  if (took < 0) {
    fprintf(stderr, "unknown kind %s\n", kind);
    return 2;
  }
  printf("%s slept %.0f ms%s\n", kind, took * 1000, interrupted ? " (EINTR)" : "");
  return spins > 0 ? 0 : 1;
}
