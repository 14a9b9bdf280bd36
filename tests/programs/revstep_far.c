/* Fixture for tests/e2e/test_travel_reverse_far.sh and bench/revstep: a
 * CPU-bound loop without syscalls, so that with one checkpoint the late
 * iterations are more than 10^7 instructions from it. argv[1] = outer
 * iterations (default 1200), argv[2] = inner ones (default 1000, about 20
 * instructions each at -O0). */
#include <stdio.h>
#include <stdlib.h>

volatile unsigned long long revstep_sink;

static unsigned long long revstep_mix(unsigned long long x) {
  return x * 6364136223846793005ULL + 1442695040888963407ULL;
}

static unsigned long long revstep_inner(unsigned long long x, long n) {
  for (long j = 0; j < n; j++) x = revstep_mix(x);
  return x;
}

int main(int argc, char** argv) {
  long outer = argc > 1 ? atol(argv[1]) : 1200;
  long inner = argc > 2 ? atol(argv[2]) : 1000;
  unsigned long long x = 1;
  for (long i = 0; i < outer; i++) {
    x = revstep_inner(x, inner); /* FAR_CALL */
    revstep_sink = x ^ (unsigned long long)i; /* FAR_MARK */
  }
  printf("revstep_far: %llu\n", revstep_sink);
  return 0;
}
