// Fixture (recorder): the stack grows during a compute loop that makes no
// syscall (recursion, each level holding a 4 KiB frame), so a tick checkpoint
// must find the grown [stack] without a syscall to prompt it. argv[1] = depth
// (default 400). Deterministic output.
#include <stdio.h>
#include <stdlib.h>

static unsigned long long descend(int depth, unsigned long long x) {
  volatile unsigned char frame[4096];
  for (int i = 0; i < 4096; i += 64) frame[i] = (unsigned char)(x >> (i % 56));
  for (long i = 0; i < 300000; i++) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  if (depth > 0) x = descend(depth - 1, x);
  return x + frame[(depth * 64) % 4096];
}

int main(int argc, char** argv) {
  int depth = argc > 1 ? atoi(argv[1]) : 400;
  printf("rec_stack depth %d checksum %llu\n", depth, descend(depth, 1));
  return 0;
}
