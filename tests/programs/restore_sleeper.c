// Fixture for restore: spends its time blocked in nanosleep, so a checkpoint
// lands inside a blocking syscall (captured as if just before it); restored,
// the sleep is re-issued and the program finishes its count.
// usage: restore_sleeper STEPS (each 100 ms); prints the steps; exit 0.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char** argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 10;
  int done = 0;
  for (int i = 0; i < steps; i++) {
    struct timespec ts = {0, 100 * 1000 * 1000};
    while (nanosleep(&ts, &ts) != 0) {
    }
    done++;
  }
  printf("slept %d steps\n", done);
  return 0;
}
