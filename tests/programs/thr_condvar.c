// Fixture (threads): a producer and a consumer thread hand 2000 numbers over
// a one-slot buffer guarded by a mutex and two condition variables; the main
// thread joins both and prints the sum (fixed: 2001000). Recording it needs
// clone3 (pthread_create), futex waits and wakes, set_robust_list and thread
// exit; today the recorder refuses it naming clone3.
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER, not_full = PTHREAD_COND_INITIALIZER;
static int slot, full;
static long sum;

static void* producer(void* arg) {
  (void)arg;
  for (int i = 1; i <= 2000; i++) {
    pthread_mutex_lock(&mu);
    while (full) pthread_cond_wait(&not_full, &mu);
    slot = i;
    full = 1;
    pthread_cond_signal(&not_empty);
    pthread_mutex_unlock(&mu);
  }
  return NULL;
}

static void* consumer(void* arg) {
  (void)arg;
  for (int i = 1; i <= 2000; i++) {
    pthread_mutex_lock(&mu);
    while (!full) pthread_cond_wait(&not_empty, &mu);
    sum += slot;
    full = 0;
    pthread_cond_signal(&not_full);
    pthread_mutex_unlock(&mu);
  }
  return NULL;
}

int main(void) {
  pthread_t p, c;
  pthread_create(&c, NULL, consumer, NULL);
  pthread_create(&p, NULL, producer, NULL);
  pthread_join(p, NULL);
  pthread_join(c, NULL);
  printf("sum %ld\n", sum);
  return 0;
}
