// Fixture (#20, threads): a worker thread runs a hot loop of 30,000,000
// iterations (no system call, many checkpoints) while main waits in
// pthread_join; the same loop as go_hot.go, for machines without Go. At
// the `total +=` line step == i and total == 3 * i * (i - 1) / 2. Prints
// "STEP TOTAL" at the end. An argument replaces the iteration count (a
// long segment for the interrupt test).
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 30000000L
long step, total;
static long iterations = N;

static void* hot(void* arg) {
  (void)arg;
  for (long i = 0; i < iterations; i++) { /* loop */
    step = i;       /* step */
    total += i * 3; /* add */
  }
  return NULL; /* after */
}

int main(int argc, char** argv) {
  if (argc > 1) iterations = atol(argv[1]);
  pthread_t t;
  pthread_create(&t, NULL, hot, NULL);
  pthread_join(t, NULL);
  printf("%ld %ld\n", step, total);
  return 0;
}
