// bench/record (b): a 1 GiB heap, fully touched; then argv[1] rounds, each
// writing 1024 random pages (4 MiB) and computing argv[2] iterations (the
// script calibrates it to ~10 ms natively), i.e. 4 MiB dirtied per 10 ms.
// Between the two, 64 getppid() calls mark the end of the setup.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char** argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 100;
  long spin = argc > 2 ? atol(argv[2]) : 10000000;
  const size_t size = 1ul << 30, pages = size / 4096;
  char* heap = mmap(0, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (heap == MAP_FAILED) return 1;
  for (size_t p = 0; p < pages; p++) heap[p * 4096] = (char)p | 1;
  // A marker for the bench: 64 syscalls in one burst end the setup, so the
  // steady state (4 MiB per 10 ms) can be told from touching the heap.
  for (int i = 0; i < 64; i++) getppid();
  unsigned long long x = 1, sum = 0;
  for (long r = 0; r < rounds; r++) {
    for (int i = 0; i < 1024; i++) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      heap[((x >> 20) % pages) * 4096 + (x & 4095)] += 1;
    }
    for (long i = 0; i < spin; i++) {
      x = x * 6364136223846793005ULL + 1;
      sum += x >> 40;
    }
  }
  printf("%llu\n", sum);
  return 0;
}
