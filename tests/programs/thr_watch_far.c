// Fixture (threads, watchpoints, #20): a worker thread computes in
// registers for about 0.1 s (no system call), stores `watched` once, and
// computes about 0.1 s more; the main thread joins it, reads `watched` and
// prints it. The store stands millions of instructions from the worker's
// last system call and from any checkpoint (built -O2: the loops keep their
// state in registers), where a reverse watch has to land.
#include <pthread.h>
#include <stdio.h>

#define N 40000000L
volatile long watched;
unsigned long sink;

static unsigned long spin(unsigned long a, long n) {
  for (long i = 0; i < n; i++) a = a * 6364136223846793005UL + 1442695040888963407UL;
  return a;
}

static void* worker(void* arg) {
  (void)arg;
  unsigned long a = spin(1, N);
  watched = (long)(a & 0xff) | 0x100; /* WATCH_FAR */
  sink = spin(a, N);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  long seen = watched; /* WATCH_READ */
  printf("watched %ld sink %lu\n", seen, sink);
  return 0;
}
