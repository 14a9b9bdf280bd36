// Fixture (recorder): a burst of scattered writes over a 64 MiB heap for each
// line read from stdin (fed slowly by the test, so the program mostly waits
// in read): hundreds of cold pages per 10 ms tick, which the recorder copies
// after the program resumed into its read, and a checksum of the heap at
// the end of input.
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

int main(int argc, char** argv) {
  (void)argc;
  (void)argv;
  const size_t pages = (64u << 20) / 4096;
  unsigned char* heap = mmap(0, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (heap == MAP_FAILED) return 1;
  for (size_t p = 0; p < pages; p++) heap[p * 4096] = (unsigned char)p;
  unsigned long long x = 7;
  char line[64];
  for (long r = 0; fgets(line, sizeof line, stdin); r++) {
    for (int i = 0; i < 256; i++) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      heap[((x >> 20) % pages) * 4096 + (x & 4095)] += (unsigned char)r;
    }
  }
  unsigned long long sum = 0;
  for (size_t k = 0; k < pages * 4096; k += 64) sum = sum * 31 + heap[k];
  printf("rec_scatter checksum %llx\n", sum);
  return 0;
}
