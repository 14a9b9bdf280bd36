// Rewrites the same 4 MiB over and over, as a compressor's match finder
// does: every page of the buffer is written in every round. Prints a
// checksum. Usage: rec_rewrite [ROUNDS] (default 4000).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define PAGES 1024

int main(int argc, char** argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 4000;
  uint64_t* buf = calloc(PAGES * 512, sizeof(uint64_t));
  if (!buf) return 1;
  for (long r = 0; r < rounds; r++)
    for (long p = 0; p < PAGES; p++) buf[p * 512 + (r % 512)] += (uint64_t)r * 2654435761u + p;
  uint64_t sum = 0;
  for (long i = 0; i < PAGES * 512; i++) sum = sum * 31 + buf[i];
  printf("%llu\n", (unsigned long long)sum);
  return 0;
}
