// Fixture (threads, #16): a setter thread stores `marker` once, then two
// threads spin on the CPU across many tick checkpoints. Recorded while the
// machine is busy, such a recording did not replay. ARGV[1] is the mode:
//   cpu   - a pure CPU loop of 10 x ARGV[2] rounds (default 60) of 100000 steps each;
//   clock - a loop that reads clock_gettime, for ARGV[2] ms (default 150);
//   seq   - as cpu, but the second spinner starts after the first ends.
// Main prints the marker and the sums (deterministic in cpu and seq modes).
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

volatile int marker;
volatile unsigned long progress[3];  // per spinner: rounds done, for GDB
volatile unsigned long half[3];      // per spinner: the sum half way (cpu and seq modes)
volatile unsigned long half_of_second;  // a line only the second spinner runs, once

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void* setter(void* arg) {
  (void)arg;
  marker = 42;
  return NULL;
}

static int clock_mode;
static long amount;

static void* spinner(void* arg) {
  const int id = (int)(long)arg;
  unsigned long x = (unsigned long)id, sum = 0;
  const double end = clock_mode ? now_ms() + amount : 0;
  for (long round = 0; clock_mode ? now_ms() < end : round < amount * 10; round++) {
    for (int i = 0; i < 100000; i++) sum += (x = x * 6364136223846793005ul + 1442695040888963407ul) >> 60;
    progress[id] = round + 1; /* SPIN_ROUND */
    if (!clock_mode && round + 1 == amount * 5) {
      half[id] = sum;
      if (id == 2)
        half_of_second = sum; /* SPIN_HALF2 */
    }
  }
  return (void*)sum;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "cpu";
  if (strcmp(mode, "cpu") && strcmp(mode, "clock") && strcmp(mode, "seq")) {
    fprintf(stderr, "usage: thr_spin_busy cpu|clock|seq [amount]\n");
    return 2;
  }
  clock_mode = !strcmp(mode, "clock");
  amount = argc > 2 ? atol(argv[2]) : (clock_mode ? 150 : 60);
  pthread_t s, a, b;
  pthread_create(&s, NULL, setter, NULL);
  pthread_join(s, NULL);
  void *ra, *rb;
  pthread_create(&a, NULL, spinner, (void*)1);
  if (!strcmp(mode, "seq")) pthread_join(a, &ra);
  pthread_create(&b, NULL, spinner, (void*)2);
  if (strcmp(mode, "seq")) pthread_join(a, &ra);
  pthread_join(b, &rb);
  printf("half %lu %lu\n", half[1], half[2]); /* MAIN_END */
  printf("marker %d sums %lu %lu rounds %lu %lu\n", marker, (unsigned long)ra, (unsigned long)rb, progress[1],
         progress[2]);
  return 0;
}
