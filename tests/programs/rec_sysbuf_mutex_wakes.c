// Fixture (threads, syscall buffer): two threads take turns on one mutex,
// yielding while they hold it and after they release it, so most unlocks
// find the other thread waiting: glibc's unlock then wakes it through
// __lll_lock_wake, whose `mov $202, %eax; syscall; ret` the buffer patches
// at its first trap. Each thread counts ROUNDS turns inside the lock.
// usage: rec_sysbuf_mutex_wakes ROUNDS; prints the count (2 x ROUNDS).
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int rounds;
static long turns;

static void* take_turns(void* arg) {
  (void)arg;
  for (int r = 0; r < rounds; r++) {
    pthread_mutex_lock(&mu);
    turns++;
    sched_yield();
    pthread_mutex_unlock(&mu);
    sched_yield();
  }
  return NULL;
}

int main(int argc, char** argv) {
  rounds = argc > 1 ? atoi(argv[1]) : 1000;
  pthread_t t;
  if (pthread_create(&t, NULL, take_turns, NULL) != 0) return 1;
  take_turns(NULL);
  pthread_join(t, NULL);
  printf("turns %ld\n", turns);
  return 0;
}
