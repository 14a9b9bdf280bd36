// Fixture (threads, robust futex list): a worker locks a robust mutex
// (PTHREAD_MUTEX_ROBUST), says so, computes for a while (long enough for
// several checkpoints to find it holding the mutex) and ends without
// unlocking. At its exit the kernel walks the worker's robust list (glibc
// registered it with set_robust_list) and marks the mutex FUTEX_OWNER_DIED,
// so the main thread's lock after pthread_join returns EOWNERDEAD. A thread
// whose robust list is lost (a restore that does not set it again) leaves
// the mutex looking held by a dead tid: the lock waits for ever.
// Usage: thr_robust [MILLIONS] (rounds of the computation, default 30).
// Prints "thr_robust: worker holds the mutex" and then
// "thr_robust: lock after the holder died: EOWNERDEAD, consistent again, sum S".
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t mutex;
static long rounds;
static volatile long sum;

static void* hold_and_die(void* arg) {
  (void)arg;
  if (pthread_mutex_lock(&mutex) != 0) return NULL;
  printf("thr_robust: worker holds the mutex\n");
  fflush(stdout);
  for (long i = 0; i < rounds; i++) sum += i % 7;
  return NULL;  // still holding it
}

int main(int argc, char** argv) {
  rounds = (argc > 1 ? atol(argv[1]) : 30) * 1000000L;
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(&mutex, &attr);
  pthread_t t;
  if (pthread_create(&t, NULL, hold_and_die, NULL) != 0) return 1;
  pthread_join(t, NULL);
  int r = pthread_mutex_lock(&mutex);
  if (r != EOWNERDEAD) {
    printf("thr_robust: lock after the holder died: %s, not EOWNERDEAD\n", strerror(r));
    return 1;
  }
  if (pthread_mutex_consistent(&mutex) != 0 || pthread_mutex_unlock(&mutex) != 0 || pthread_mutex_lock(&mutex) != 0)
    return 1;
  printf("thr_robust: lock after the holder died: EOWNERDEAD, consistent again, sum %ld\n", sum);
  return 0;
}
