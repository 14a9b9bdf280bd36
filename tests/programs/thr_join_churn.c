// Fixture (threads, pthread_join racing a thread's end): creates THREADS
// threads one after the other and joins each at once. Each adds up a short
// series and returns. The recorder logs a thread's `exit` before the kernel
// runs it, so the joiner may read the thread's tid word still set and go to
// wait on it; a tick there (record --interval 1) puts the exit in one segment
// and the join's futex wait in the next. Each thread's series is long enough
// that ticks often come while it runs. Usage: thr_join_churn [THREADS]
// [ROUNDS] (default 300 threads of 100000 rounds).
// Prints "thr_join_churn: THREADS joined, sum S" (fixed).
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void* add_up(void* arg) {
  long n = (long)arg, s = 0;
  for (long i = 0; i < n; i++) s += i % 3;
  return (void*)s;
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 300;
  const long rounds = argc > 2 ? atol(argv[2]) : 100000;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  long sum = 0;
  for (long i = 0; i < n; i++) {
    pthread_t t;
    void* r;
    if (pthread_create(&t, &attr, add_up, (void*)(rounds + i)) != 0 || pthread_join(t, &r) != 0) return 1;
    sum += (long)r;
  }
  printf("thr_join_churn: %ld joined, sum %ld\n", n, sum);
  return 0;
}
