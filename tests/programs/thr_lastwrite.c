// Fixture (threads, last-write): a setter thread stores `marker` once, then
// two threads spin on the CPU for ARGV[1] ms (default 150) without touching
// `marker`'s page, across many tick checkpoints; main prints the marker and
// the sums. `last-write marker` from the end must name the setter's store
// and skip the segments of the spinning.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile int marker;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void* setter(void* arg) {
  (void)arg;
  marker = 42; /* LW_MARK */
  return NULL;
}

static long spin_ms;

static void* spinner(void* arg) {
  unsigned long x = (unsigned long)arg, sum = 0;
  const double end = now_ms() + spin_ms;
  while (now_ms() < end)
    for (int i = 0; i < 100000; i++) sum += (x = x * 6364136223846793005ul + 1442695040888963407ul) >> 60;
  return (void*)sum;
}

int main(int argc, char** argv) {
  spin_ms = argc > 1 ? atol(argv[1]) : 150;
  pthread_t s, a, b;
  pthread_create(&s, NULL, setter, NULL);
  pthread_join(s, NULL);
  pthread_create(&a, NULL, spinner, (void*)1);
  pthread_create(&b, NULL, spinner, (void*)2);
  void *ra, *rb;
  pthread_join(a, &ra);
  pthread_join(b, &rb);
  printf("marker %d sums %lu %lu\n", marker, (unsigned long)ra, (unsigned long)rb);
  return 0;
}
