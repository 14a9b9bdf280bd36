// Fixture for `slsdbg restore --repeat`: computes for a while with all state
// in memory, then reads one random byte (getrandom) after the checkpoint and
// exits with status 10 + byte % 4. Restored repeatedly from one checkpoint it
// ends differently: the nondeterminism --repeat exists to surface.
// usage: restore_coinflip ITERATIONS
#include <stdlib.h>
#include <sys/random.h>

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000000L;
  volatile unsigned long long x = 3;
  for (long i = 0; i < n; i++) x = x * 6364136223846793005ULL + 1;
  unsigned char b = 0;
  if (getrandom(&b, 1, 0) != 1) return 1;
  return 10 + b % 4;
}
