// Fixture (recorder): the vDSO clocks (clock_gettime, gettimeofday, time) in a
// loop; checks monotonic time never goes backwards and realtime is sane.
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

int main(void) {
  struct timespec prev = {0, 0}, now;
  int backwards = 0;
  for (int i = 0; i < 5000; i++) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec < prev.tv_sec || (now.tv_sec == prev.tv_sec && now.tv_nsec < prev.tv_nsec)) backwards++;
    prev = now;
  }
  struct timeval tv;
  gettimeofday(&tv, 0);
  time_t t = time(0);
  int sane = tv.tv_sec > 1600000000 && t > 1600000000 && t - tv.tv_sec < 5;
  printf("rec_clock 5000 reads, backwards %d, realtime sane %d\n", backwards, sane);
  return backwards != 0 || !sane;
}
