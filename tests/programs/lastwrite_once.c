/* Fixture for tests/e2e/test_travel_last_write.sh and bench/travel/last_write.py:
 * lw_target is written exactly once, early (right after a syscall), then a
 * CPU-bound loop that never touches it runs for argv[1] ms of CPU time. It
 * reads the CPU time (a syscall) every argv[2] rounds of ~7 us of arithmetic
 * (default 1; 100000 makes a syscall-free hot loop between the checks). The
 * marker comments name the lines the tests look for. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Each on a page of its own: the loop's writes (stack) never dirty them. */
__attribute__((aligned(4096))) int lw_target = 7;
__attribute__((aligned(4096))) int lw_never = 5;
__attribute__((aligned(4096))) char lw_pad[4096] = {1};

static unsigned long lw_work(unsigned long x) {
  for (int k = 0; k < 200; k++) x = x * 6364136223846793005ul + 1442695040888963407ul;
  return x;
}

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char** argv) {
  double run_ms = argc > 1 ? atof(argv[1]) : 200;
  long per_check = argc > 2 ? atol(argv[2]) : 1; /* rounds between two CPU-time syscalls */
  if (per_check < 1) per_check = 1;
  long pid = getpid();
  lw_target = 42 + (int)(pid & 0); /* LW_WRITE */
  double start = cpu_ms();
  long rounds = 0;
  unsigned long sink = 0;
  do {
    for (long r = 0; r < per_check; r++, rounds++)
      for (int i = 0; i < 20; i++) sink += lw_work(sink + (unsigned long)i);
  } while (cpu_ms() - start < run_ms);
  printf("lastwrite_once: target %d, never %d, after %ld rounds (%lx)\n", lw_target, lw_never, rounds, sink); /* LW_END */
  return 0;
}
