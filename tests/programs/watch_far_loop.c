// Fixture (watchpoints, #20): work() stores its loop counter into the
// global `counter` at every iteration (argv[1] of them, default 5*10^7),
// then other() stores into `spin` (the same page) as many times, so the
// last store to `counter` lies checkpoints back, in a segment that ran the
// store millions of times. A reverse watch on `counter` from the end must
// find that store without a trap per store.
#include <stdio.h>
#include <stdlib.h>

volatile long counter;
volatile long spin;

static void __attribute__((noinline)) work(long n) {
  for (long i = 0; i < n; i++) counter = i; /* FAR_STORE */
}

static void __attribute__((noinline)) other(long n) {
  for (long i = 0; i < n; i++) spin = i;
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 50000000L;
  work(n);
  other(n);
  printf("counter %ld spin %ld\n", counter, spin); /* FAR_READ */
  return 0;
}
