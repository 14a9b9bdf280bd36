// Fixture (#20, threads): a worker thread runs a loop of 3,000,000
// iterations (about 3*10^7 instructions at -O0, no system call) while main
// waits in pthread_join; the line after the loop is then that far from the
// thread's last resume. Reverse steps from there must find the loop's last
// instruction without single-stepping the whole loop. At the loop's body
// step == i; after the loop i == N. Prints "STEP TOTAL" at the end.
#include <pthread.h>
#include <stdio.h>

#define N 3000000L
long step, total;

static void* hot(void* arg) {
  long i;
  for (i = 0; i < N; i++) { /* LOOP */
    step = i;               /* STEP */
    total += i * 3;         /* ADD */
  }
  total += (long)arg; /* AFTER */
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, hot, (void*)1L);
  pthread_join(t, NULL);
  printf("%ld %ld\n", step, total);
  return 0;
}
