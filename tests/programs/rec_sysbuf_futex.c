// Fixture (threads, syscall buffer): futex wakes, most of them waking
// nobody. The consumer thread starts before the program makes any call the
// buffer serves, so libc's sites are patched while two threads live.
// Each round the producer puts BATCH numbers in a ring, posting `items`
// once per number, then waits on `done`; the consumer takes BATCH numbers
// (sem_wait on `items`) and posts `done`. While the consumer waits in the
// kernel every sem_post sees a waiter and makes a FUTEX_WAKE: the first
// wakes it, the others (it has not run yet) wake nobody.
// usage: rec_sysbuf_futex ROUNDS; prints the sum and the count, fixed by ROUNDS.
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#define BATCH 64

static sem_t items, done;
static long ring[BATCH];
static int rounds;
static long sum, taken;

static void* consumer(void* arg) {
  (void)arg;
  for (int r = 0; r < rounds; r++) {
    for (int k = 0; k < BATCH; k++) {
      while (sem_wait(&items) != 0) {
      }
      sum += ring[k];
      taken++;
    }
    sem_post(&done);
  }
  return NULL;
}

int main(int argc, char** argv) {
  rounds = argc > 1 ? atoi(argv[1]) : 100;
  sem_init(&items, 0, 0);
  sem_init(&done, 0, 0);
  pthread_t t;
  if (pthread_create(&t, NULL, consumer, NULL) != 0) return 1;
  for (int r = 0; r < rounds; r++) {
    for (int k = 0; k < BATCH; k++) {
      ring[k] = (long)r * BATCH + k;
      sem_post(&items);
    }
    while (sem_wait(&done) != 0) {
    }
  }
  pthread_join(t, NULL);
  printf("sum %ld taken %ld\n", sum, taken);
  return 0;
}
