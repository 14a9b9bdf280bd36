// Fixture (threads, #16): a thread waits in poll() on a pipe while the main
// thread spins across tick checkpoints. Its pollfd holds a stale revents
// (POLLIN) from before the call, as an array reused from a freed one does.
// Each checkpoint cuts the wait, and the kernel writes every revents back
// (zero) on its way out of the cut call, which replay never runs: python3's
// multiprocessing.Pool (a selector's fresh array over a freed one) made
// `replay --check` diverge at the next checkpoint ("page ... differs ...
// first byte 01, recorded 00"). Prints what poll returned and the spin's sum.
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int fds[2];
static volatile int waiting;

static void* waiter(void* arg) {
  (void)arg;
  struct pollfd p = {.fd = fds[0], .events = POLLIN, .revents = POLLIN};  // stale
  waiting = 1;
  const int n = poll(&p, 1, -1);
  char c = 0;
  const ssize_t got = read(fds[0], &c, 1);
  printf("poll %d revents %d read %zd %c\n", n, p.revents, got, c);
  return NULL;
}

int main(void) {
  if (pipe(fds) != 0) return 1;
  pthread_t t;
  pthread_create(&t, NULL, waiter, NULL);
  while (!waiting) {
  }
  // Several ticks while the waiter is in its poll.
  unsigned long x = 1, sum = 0;
  for (long i = 0; i < 40000000L; i++) sum += (x = x * 6364136223846793005ul + 1442695040888963407ul) >> 60;
  if (write(fds[1], "w", 1) != 1) return 1;
  pthread_join(t, NULL);
  printf("sum %lu\n", sum);
  return 0;
}
