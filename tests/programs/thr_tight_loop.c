// Fixture (#20, threads): a worker thread spins through an empty -O0 loop
// of three instructions (add, compare, conditional jump) 10^7 times, with
// no system call, then the line after it. A tick inside the loop stands on
// the conditional jump about one time in three, right before the bytes of
// the line after the loop (where a debugger puts its breakpoint). Prints
// the final count.
#include <pthread.h>
#include <stdio.h>

#define N 10000000L
long count;

static void* spin(void* arg) {
  long i;
  for (i = 0; i < N; i++) { /* LOOP */
  }
  count = i + (long)arg; /* AFTER */
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, spin, (void*)1L);
  pthread_join(t, NULL);
  printf("%ld\n", count);
  return 0;
}
