// Fixture (#20, watchpoints in a hot loop): `hot` is written on each of
// argv[1] iterations, `mark` once, at iteration argv[2]. At -O0 `i` and
// `sum` live on the stack, so the checkpoints taken in the loop land among
// its stores.
#include <stdio.h>
#include <stdlib.h>

volatile long hot, mark;

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 20000000;
  const long at = argc > 2 ? atol(argv[2]) : n * 5 / 6;
  long sum = 0;
  for (long i = 0; i < n; i++) {
    hot = i;
    sum += i * 7;
    if (i == at) mark = sum; /* MARK */
  }
  printf("watch_hot_loop: %ld %ld\n", sum, hot); /* AFTER */
  return 0;
}
