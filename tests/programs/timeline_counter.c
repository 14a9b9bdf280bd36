// Timeline fixture: prints its own state at known points so tests can compare
// what replay shows with what the native run saw. Calls tl_start once, prints
// the addresses of the global tl_total, of tl_mark and tl_start (PIE: they differ per run; replay restores
// the recorded ones), then for each iteration i: tl_total is updated (the
// watched write), tl_mark(i) is called (the breakpoint), the state is printed,
// and time passes (a spin loop, or with spins 0 a 1 ms sleep) so a short
// --interval gives many checkpoints.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile long tl_total = 0;

__attribute__((noinline)) long tl_mark(long i) { return i + tl_total; }
__attribute__((noinline)) void tl_start(void) { tl_total = 0; }

static void spin(long n) {
  for (volatile long j = 0; j < n; j++) {
  }
}

int main(int argc, char** argv) {
  const long iters = argc > 1 ? atol(argv[1]) : 30;
  const long spins = argc > 2 ? atol(argv[2]) : 300000;
  char buf[128];
  tl_start();
  int len = snprintf(buf, sizeof buf, "addr tl_total=%p tl_mark=%p tl_start=%p\n", (void*)&tl_total,
                     (void*)&tl_mark, (void*)&tl_start);
  if (write(1, buf, len) != len) return 1;
  for (long i = 0; i < iters; i++) {
    tl_total += i * 3 + 1;
    tl_mark(i);
    len = snprintf(buf, sizeof buf, "i=%ld total=%ld\n", i, tl_total);
    if (write(1, buf, len) != len) return 1;
    if (spins > 0)
      spin(spins);
    else
      usleep(1000);  // time passes in a syscall: cheap to replay
  }
  return 0;
}
