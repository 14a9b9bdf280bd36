/* A thread sleeps 200 ms while the main thread waits for it in
 * pthread_join: every thread waits in the kernel for the whole run. The
 * recorder must not cut the sleep at each tick (a cut relative sleep starts
 * again from the full 200 ms). Prints how long the sleep took. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static void *nap(void *arg) {
  double *took = arg;
  double t0 = now();
  usleep(200000);
  *took = now() - t0;
  return 0;
}

int main(void) {
  double took = 0;
  pthread_t t;
  pthread_create(&t, 0, nap, &took);
  pthread_join(t, 0);
  printf("slept %.0f ms\n", took * 1000);
  return 0;
}
