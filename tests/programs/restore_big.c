// Fixture for the restore benchmark: a process of MIB MiB of heap, every page
// written (dense) or one page in 64 (sparse), then spinning until killed.
// usage: restore_big MIB dense|sparse [exit]   ("exit": populate, then exit 0,
// which times the native populate for comparison)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char** argv) {
  size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
  int sparse = argc > 2 && strcmp(argv[2], "sparse") == 0;
  size_t len = mib << 20;
  unsigned char* p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 1;
  size_t step = sparse ? 64 * 4096 : 4096;
  unsigned long x = 88172645463325252UL;
  for (size_t off = 0; off < len; off += step) {
    for (size_t i = 0; i < 4096; i += 512) {  // a few distinct words per page: no dedup
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      memcpy(p + off + i, &x, sizeof x);
    }
  }
  if (argc > 3 && strcmp(argv[3], "exit") == 0) return 0;
  volatile unsigned long spin = 0;
  for (;;) spin++;
}
