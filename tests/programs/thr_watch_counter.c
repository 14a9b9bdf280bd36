// Fixture (threads, watchpoints, #20): a worker thread stores its loop
// counter into the global `counter` at every iteration (5*10^7 of them,
// -O1: about 50 ms), then the main thread, after the join, stores into
// `spin` for as long again, so the last store to `counter` lies several
// checkpoints back and the segment holding it ran the store millions of
// times. A reverse watch on `counter` from the end must find that store
// without a trap per store. argv[1]: another number of iterations (bench).
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long n = 50000000L;
volatile long counter;
volatile long spin;

static void* worker(void* arg) {
  (void)arg;
  for (long i = 0; i < n; i++) counter = i; /* COUNTER_STORE */
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) n = atol(argv[1]);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  for (long i = 0; i < n; i++) spin = i; /* SPIN_STORE */
  printf("counter %ld spin %ld\n", counter, spin); /* COUNTER_READ */
  return 0;
}
