// Fixture (threads, restore and replay): two workers each add up a series
// in a thread-local total (TLS: their own fs_base) and store it in their
// slot, while the main thread waits for them in pthread_join. Long enough
// (a few hundred ms natively) that a recording's checkpoints hold all three
// threads. Prints "restore 3 threads: 150000000 169999984" (fixed).
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 20000000L
static __thread long total;
static long slots[2];

static void* worker(void* arg) {
  long id = (long)arg;
  for (long i = 0; i < ROUNDS; i++) total += i % (16 + 2 * id);
  slots[id] = total;
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void*)i);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  printf("restore 3 threads: %ld %ld\n", slots[0], slots[1]);
  return 0;
}
