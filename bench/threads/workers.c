// bench/threads: N threads each add up a series in their own thread-local
// total (CPU-bound, no syscall in the loop), then the main thread joins
// them. usage: workers THREADS ROUNDS
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long rounds;
static __thread volatile long total;
static long slots[64];

static void* work(void* arg) {
  long id = (long)arg;
  for (long i = 0; i < rounds; i++) total += i % (16 + id);
  slots[id] = total;
  return NULL;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2;
  rounds = argc > 2 ? atol(argv[2]) : 100000000L;
  if (n < 1 || n > 64) return 2;
  pthread_t t[64];
  for (long i = 0; i < n; i++) pthread_create(&t[i], NULL, work, (void*)i);
  long sum = 0;
  for (int i = 0; i < n; i++) {
    pthread_join(t[i], NULL);
    sum += slots[i];
  }
  printf("%d threads: %ld\n", n, sum);
  return 0;
}
