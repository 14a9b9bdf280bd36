// rec_memloop: a CPU-bound loop whose whole state is doubles in memory, so
// every visit of a pc in it has the same general registers, as in an
// interpreter's loop (mawk's `for (i = 0; i < n; i++) s += i`): replay tells
// the visits apart by memory.
#include <stdio.h>
#include <stdlib.h>

static volatile double sum;
static volatile double d;

int main(int argc, char** argv) {
  const double n = argc > 1 ? atof(argv[1]) : 2e7;
  for (d = 0; d < n; d = d + 1.0) sum = sum + d;
  printf("rec_memloop %.0f\n", sum);
  return 0;
}
