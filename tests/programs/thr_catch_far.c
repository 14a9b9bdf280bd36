// Fixture (#20, threads, catch syscall): a worker thread runs a loop of
// 3,000,000 iterations (about 3*10^7 instructions at -O0, no system call)
// while main waits in pthread_join, then writes one line: its write is that
// far from the thread's last resume. A reverse step from the caught write
// must find the call's instruction without single-stepping the loop.
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define N 3000000L
static long total;

static void* worker(void* arg) {
  for (long i = 0; i < N; i++) total += i ^ (long)arg;
  char line[64];
  snprintf(line, sizeof line, "far %ld\n", total);
  return write(1, line, strlen(line)) > 0 ? NULL : arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, (void*)5L);
  pthread_join(t, NULL);
  return 0;
}
