// Fixture for per-thread core notes: two worker threads each block in
// dump_worker_outer -> dump_worker_inner (reading a pipe nobody writes) while
// the main thread blocks in dump_main_wait; prints "ready" when all are there.
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int never_written[2];
static pthread_barrier_t started;

__attribute__((noinline)) static long dump_worker_inner(long id) {
  char c;
  pthread_barrier_wait(&started);
  return read(never_written[0], &c, 1) + id;
}

__attribute__((noinline)) static void* dump_worker_outer(void* arg) {
  long id = (long)arg;
  long depth_marker = 500 + id;  // 501, 502
  return (void*)(dump_worker_inner(id) + depth_marker);
}

__attribute__((noinline)) static void dump_main_wait(void) {
  char c;
  printf("ready\n");
  fflush(stdout);
  if (read(never_written[0], &c, 1) < 0) perror("read");
}

int main(void) {
  pthread_t t[2];
  if (pipe(never_written) != 0) return 1;
  pthread_barrier_init(&started, NULL, 3);
  for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, dump_worker_outer, (void*)(i + 1));
  pthread_barrier_wait(&started);
  usleep(100 * 1000);  // let the workers enter read()
  dump_main_wait();
  return 0;
}
