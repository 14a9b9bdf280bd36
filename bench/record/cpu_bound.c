// bench/record (a): CPU-bound work, argv[1] iterations; no syscalls in the loop.
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 300000000L;
  unsigned long long x = 1, sum = 0;
  for (long i = 0; i < n; i++) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    sum += x >> 33;
  }
  printf("%llu\n", sum);
  return 0;
}
