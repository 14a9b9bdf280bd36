// Fixture (threads, watchpoints, #20): a worker thread stores i into
// slots->v[i & 4095] for 500 million i (about 0.2 s), a store whose
// instruction is long enough for a counter stub (a displacement past the
// struct's padding, built -O2); the main thread joins it and prints v[7].
// A reverse watch on v[7] from the end lands before the last of those
// stores, in a segment where the store ran millions of times.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 500000000L
struct slots {
  char pad[512];
  long v[4096];
};
struct slots* slots;

static void __attribute__((noinline)) fill(struct slots* s, long n) {
  for (long i = 0; i < n; i++) s->v[i & 4095] = i; /* HOT_STORE */
}

static void* worker(void* arg) {
  (void)arg;
  fill(slots, N);
  return NULL;
}

int main(void) {
  slots = calloc(1, sizeof *slots);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  printf("v[7] %ld\n", slots->v[7]); /* HOT_READ */
  return 0;
}
