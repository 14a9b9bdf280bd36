// Fixture (recorder): a CPU-bound loop with a known checksum; argv[1] =
// iterations (default 30,000,000). Deterministic output.
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 30000000L;
  unsigned long long x = 1, sum = 0;
  for (long i = 0; i < n; i++) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    sum += x >> 33;
  }
  printf("rec_compute %ld iterations checksum %llu\n", n, sum);
  return 0;
}
