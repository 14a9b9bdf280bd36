// Fixture (threads, many clones): starts THREADS threads one after the
// other (64 KiB stacks); each counts itself and then waits for ever reading
// a pipe nobody writes, until the main thread's exit ends them all (no
// join: a join's race with a thread's end is not what this exercises). A
// tick often comes while the main thread is inside clone3, after the
// kernel made the new thread. Usage: thr_churn [THREADS] (default 64).
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static atomic_long started;
static int never[2];

static void* wait_for_ever(void* arg) {
  (void)arg;
  atomic_fetch_add(&started, 1);
  char b;
  return read(never[0], &b, 1) == 1 ? arg : NULL;
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 64;
  if (pipe(never) != 0) return 1;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  for (long i = 0; i < n; i++) {
    pthread_t t;
    if (pthread_create(&t, &attr, wait_for_ever, NULL) != 0) return 1;
  }
  while (atomic_load(&started) < n) sched_yield();
  printf("thr_churn: %ld threads started\n", n);
  fflush(stdout);
  _exit(0);
}
