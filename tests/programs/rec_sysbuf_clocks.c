// Fixture (recorder, syscall buffer): every clock read the vDSO patch sends
// through the buffer's stub, in a loop, plus the shapes that must still take
// the trapped path (gettimeofday with a timezone) or fail (a bad clock id).
// The readings are folded into globals, so a replay that served other values
// would leave other memory; stdout holds only what does not vary with time.
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

volatile uint64_t mix;  // every reading folded in
struct timespec last_mono;

static void fold(uint64_t v) { mix = (mix ^ v) * 0x100000001b3ull; }

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 6000;
  int backwards = 0, failures = 0;
  for (int i = 0; i < n; i++) {
    struct timespec now;
    if (clock_gettime(CLOCK_MONOTONIC, &now) != 0) failures++;
    if (now.tv_sec < last_mono.tv_sec || (now.tv_sec == last_mono.tv_sec && now.tv_nsec < last_mono.tv_nsec))
      backwards++;
    last_mono = now;
    fold((uint64_t)now.tv_nsec);
    if (i % 8 == 0) {
      struct timeval tv;
      if (gettimeofday(&tv, NULL) != 0) failures++;
      time_t t1, t2 = time(&t1);
      if (t1 != t2 || t2 < 1600000000) failures++;
      fold((uint64_t)tv.tv_usec ^ (uint64_t)time(NULL));
    }
  }
  struct timespec res, bad;
  const int res_ok = clock_getres(CLOCK_MONOTONIC, &res) == 0 && clock_getres(CLOCK_REALTIME, NULL) == 0;
  const int einval = clock_gettime(12345, &bad) == -1 && errno == EINVAL;
  struct timeval tv;
  struct timezone tz;
  const int with_tz = gettimeofday(&tv, &tz) == 0 && tv.tv_sec > 1600000000;
  printf("rec_sysbuf_clocks %d reads, backwards %d, failures %d, getres %d (%ld ns), bad clock EINVAL %d, tz %d\n", n,
         backwards, failures, res_ok, res.tv_nsec, einval, with_tz);
  return backwards != 0 || failures != 0 || !res_ok || !einval || !with_tz;
}
