// Fixture (recorder): heap churn. malloc/free of mixed sizes, realloc, large
// blocks (mmap'ed by malloc) that are written then freed (munmap), brk growth
// and shrink. Prints a checksum of everything it wrote.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(void) {
  enum { kSlots = 512 };
  char* slot[kSlots] = {0};
  size_t size[kSlots] = {0};
  unsigned long long seed = 42, sum = 0;
  for (int round = 0; round < 200000; round++) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    int i = (seed >> 33) % kSlots;
    if (slot[i]) {
      for (size_t k = 0; k < size[i]; k += 512) sum += (unsigned char)slot[i][k];
      free(slot[i]);
      slot[i] = 0;
    } else {
      size_t n = (seed >> 40) % 4 == 0 ? (size_t)((seed >> 20) % (512 * 1024)) + 1 : (size_t)((seed >> 20) % 4096) + 1;
      slot[i] = malloc(n);
      memset(slot[i], (int)(round & 0xff), n);
      size[i] = n;
    }
    if (round % 5000 == 0) {
      char* big = mmap(0, 8 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      for (size_t k = 0; k < (8u << 20); k += 4096) big[k] = (char)k;
      madvise(big, 4 << 20, MADV_DONTNEED);
      sum += big[4096 * 3] + big[(4 << 20) + 4096];
      munmap(big, 8 << 20);
    }
  }
  for (int i = 0; i < kSlots; i++) free(slot[i]);
  printf("rec_heap checksum %llu\n", sum);
  return 0;
}
