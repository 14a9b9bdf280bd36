/* Fixture (threaded reverse scans: e2e_travel_threads_unarmed_head, bench
 * travel/thread_reverse_continue.py): a worker thread runs a
 * CPU-bound loop of argv[1] rounds without syscalls while main waits in
 * pthread_join, and calls thr_goal_once() once, at round argv[2]. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

volatile unsigned long long thr_goal_sink;
static long rounds, at;

__attribute__((noinline)) void thr_goal_once(long round) { thr_goal_sink += (unsigned long long)round; }

static void* worker(void* arg) {
  unsigned long long x = thr_goal_sink;
  for (long i = 0; i < rounds; i++) {
    if (i == at) thr_goal_once(i);
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  }
  thr_goal_sink ^= x; /* LOOP_END */
  return arg;
}

int main(int argc, char** argv) {
  rounds = argc > 1 ? atol(argv[1]) : 1000000;
  at = argc > 2 ? atol(argv[2]) : 0;
  pthread_t t;
  if (pthread_create(&t, NULL, worker, NULL) != 0) return 2;
  pthread_join(t, NULL);
  printf("thr_goal_cpu: %llu\n", thr_goal_sink);
  return 0;
}
