// Fixture for bench/dump: a heap of argv[1] MiB (default 1024) filled with
// non-zero, non-repeating words (so neither holes nor dedup shrink a core),
// then a known pause:
//   dump_bigheap MIB stop     : raises SIGSTOP (live-process bench and gcore)
//   dump_bigheap MIB sleep MS : sleeps MS ms (recorded), then exits 0
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t* dump_bigheap_data;

int main(int argc, char** argv) {
  size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
  const char* mode = argc > 2 ? argv[2] : "stop";
  long ms = argc > 3 ? atol(argv[3]) : 300;
  size_t words = mib * (1u << 20) / sizeof(uint64_t);
  dump_bigheap_data = malloc(words * sizeof(uint64_t));
  if (!dump_bigheap_data) return 1;
  for (size_t i = 0; i < words; i++) dump_bigheap_data[i] = (i + 1) * 0x9E3779B97F4A7C15ull;
  if (strcmp(mode, "stop") == 0) {
    raise(SIGSTOP);
  } else {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
  }
  return dump_bigheap_data[words - 1] == 0;
}
