// Fixture (recorder): rdtsc and rdtscp in a loop (they trap and are emulated
// under the recorder); checks the counter never goes backwards.
#include <stdio.h>
#include <x86intrin.h>

int main(void) {
  unsigned long long prev = 0;
  int backwards = 0;
  unsigned aux;
  for (int i = 0; i < 2000; i++) {
    unsigned long long t = (i & 1) ? __rdtscp(&aux) : __rdtsc();
    if (t < prev) backwards++;
    prev = t;
  }
  printf("rec_rdtsc 2000 reads, backwards %d\n", backwards);
  return backwards != 0;
}
