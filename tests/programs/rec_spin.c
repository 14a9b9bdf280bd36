// Fixture (recorder): computes for argv[1] milliseconds of wall time (default
// 1000), checking the clock every 100k iterations; prints a fixed line, so
// the output does not depend on speed. Exit status argv[2] (default 0).
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  double ms = argc > 1 ? atof(argv[1]) : 1000;
  int status = argc > 2 ? atoi(argv[2]) : 0;
  volatile unsigned long long x = 1;
  double end = now() + ms / 1000.0;
  while (now() < end)
    for (int i = 0; i < 100000; i++) x = x * 6364136223846793005ULL + 1;
  printf("rec_spin done\n");
  fflush(stdout);
  return status;
}
