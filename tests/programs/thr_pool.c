// Fixture (threads): a pool of 4 workers takes 300 tasks from a queue
// guarded by a mutex and a condition variable; each task adds its number
// to a per-worker total, and the main thread joins the workers and prints
// the sum (fixed: "pool 45150").
#include <pthread.h>
#include <stdio.h>

#define TASKS 300
#define WORKERS 4
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER;
static int queue[TASKS], head, tail, closed;
static long totals[WORKERS];

static void* worker(void* arg) {
  long* total = arg;
  for (;;) {
    pthread_mutex_lock(&mu);
    while (head == tail && !closed) pthread_cond_wait(&more, &mu);
    if (head == tail) {
      pthread_mutex_unlock(&mu);
      return NULL;
    }
    int task = queue[head++];
    pthread_mutex_unlock(&mu);
    *total += task;
  }
}

int main(void) {
  pthread_t t[WORKERS];
  for (int i = 0; i < WORKERS; i++) pthread_create(&t[i], NULL, worker, &totals[i]);
  for (int i = 1; i <= TASKS; i++) {
    pthread_mutex_lock(&mu);
    queue[tail++] = i;
    pthread_cond_signal(&more);
    pthread_mutex_unlock(&mu);
  }
  pthread_mutex_lock(&mu);
  closed = 1;
  pthread_cond_broadcast(&more);
  pthread_mutex_unlock(&mu);
  long sum = 0;
  for (int i = 0; i < WORKERS; i++) {
    pthread_join(t[i], NULL);
    sum += totals[i];
  }
  printf("pool %ld\n", sum);
  return 0;
}
