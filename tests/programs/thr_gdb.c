// Fixture (threads, GDB): three workers take turns round-robin, handing a
// turn over a mutex and a condition variable, ROUNDS times each. Each
// worker first sets its thread-local `tls_id` to 11 * its number and waits
// at a barrier, so all four threads live together; then every turn calls
// `take_turn(worker, round)` (the breakpoint GDB tests use). The main
// thread joins them and prints "turns 600 total 13200".
#include <pthread.h>
#include <stdio.h>

#define WORKERS 3
#define ROUNDS 200
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t all_started;
static int turn = 1;
static long turns, total;
static __thread int tls_id;

__attribute__((noinline)) void take_turn(int worker, int round) {
  turns++;
  total += tls_id;
  (void)worker;
  (void)round;
}

static void* worker(void* arg) {
  const int me = (int)(long)arg;
  tls_id = 11 * me;
  pthread_barrier_wait(&all_started);
  for (int round = 0; round < ROUNDS; round++) {
    pthread_mutex_lock(&mu);
    while (turn != me) pthread_cond_wait(&changed, &mu);
    take_turn(me, round);
    turn = me % WORKERS + 1;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&mu);
  }
  return NULL;
}

int main(void) {
  pthread_t t[WORKERS];
  pthread_barrier_init(&all_started, NULL, WORKERS);
  for (long i = 0; i < WORKERS; i++) pthread_create(&t[i], NULL, worker, (void*)(i + 1));
  for (int i = 0; i < WORKERS; i++) pthread_join(t[i], NULL);
  printf("turns %ld total %ld\n", turns, total);
  return 0;
}
