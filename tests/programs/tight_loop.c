// Fixture (#20): thr_tight_loop's loop in the main thread, for the
// single-thread replay: an empty -O0 loop of three instructions (add,
// compare, conditional jump) run 10^7 times with no system call, then the
// line after it. A tick inside the loop stands on the conditional jump
// about one time in three, right before the bytes of the line after the
// loop (where a debugger puts its breakpoint). Prints the final count.
#include <stdio.h>

#define N 10000000L
long count;

int main(void) {
  long i;
  for (i = 0; i < N; i++) { /* LOOP */
  }
  count = i + 1; /* AFTER */
  printf("%ld\n", count);
  return 0;
}
