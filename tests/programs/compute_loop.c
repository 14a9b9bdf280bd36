// Fixture: a CPU-bound loop with a known result. argv[1] = iterations
// (default 50,000,000). Prints the checksum; exit 0.
#include <stdio.h>
#include <stdlib.h>

volatile unsigned long long checksum;

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 50000000L;
  unsigned long long x = 1;
  for (long i = 0; i < n; i++) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    checksum += x >> 33;
  }
  printf("checksum %llu\n", (unsigned long long)checksum);
  return 0;
}
