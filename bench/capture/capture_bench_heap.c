/* Tracee of bench/capture: a 1 GiB heap (4 KiB pages, no THP), every page
 * written once, then every 10 ms it writes 4 MiB (1024 random pages) of it.
 * argv: [heap MiB] [dirty KiB per period] [period us]. Writes "R" to stdout
 * when the heap is populated, then runs until killed. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char** argv) {
  size_t heap_mib = argc > 1 ? strtoul(argv[1], 0, 10) : 1024;
  size_t dirty_kib = argc > 2 ? strtoul(argv[2], 0, 10) : 4096;
  uint64_t period_ns = (argc > 3 ? strtoull(argv[3], 0, 10) : 10000) * 1000ull;
  size_t size = heap_mib << 20, npages = size / 4096, per = dirty_kib / 4;
  unsigned char* heap = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (heap == MAP_FAILED) return 1;
  madvise(heap, size, MADV_NOHUGEPAGE);
  memset(heap, 1, size);
  if (write(1, "R", 1) != 1) return 2;
  uint64_t rng = 88172645463325252ull, next = now_ns();
  for (;;) {
    for (size_t i = 0; i < per; i++) {
      rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
      heap[(rng % npages) * 4096 + (i % 4096)]++;
    }
    next += period_ns;
    uint64_t t = now_ns();
    if (next > t) {
      struct timespec ts = {(time_t)((next - t) / 1000000000ull), (long)((next - t) % 1000000000ull)};
      nanosleep(&ts, NULL);
    } else {
      next = t;
    }
  }
}
