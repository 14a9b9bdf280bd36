/* Fixture for tests/e2e/test_replay_gdb_*.sh and bench/travel: a loop long
 * enough for many checkpoints that corrupts travel_balance exactly once, at
 * iteration CORRUPT_AT (argv[2], default 3/4 of argv[1] iterations). Each
 * iteration does a little arithmetic and one cheap syscall, so replaying a
 * segment visits any one pc only a few dozen times. travel_setup runs once,
 * at the start. The marker comments name the lines the tests look for. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int travel_balance = 1000;
unsigned long travel_checksum;
int travel_setup_calls;

static void travel_setup(void) {
  travel_setup_calls++; /* TRAVEL_SETUP */
}

static unsigned long travel_step(long i) {
  unsigned long x = (unsigned long)i * 2654435761u;
  for (int k = 0; k < 50; k++) x = x * 6364136223846793005ul + 1442695040888963407ul;
  return x ^ (unsigned long)getppid();
}

int main(int argc, char** argv) {
  long iterations = argc > 1 ? atol(argv[1]) : 3000;
  long corrupt_at = argc > 2 ? atol(argv[2]) : iterations * 3 / 4;
  travel_setup();
  for (long i = 0; i < iterations; i++) {
    travel_checksum += travel_step(i);
    if (i == corrupt_at) travel_balance = -7; /* TRAVEL_CORRUPT */
  }
  printf("travel_corrupt: balance %d after %ld iterations\n", travel_balance, iterations); /* TRAVEL_END */
  return 0;
}
