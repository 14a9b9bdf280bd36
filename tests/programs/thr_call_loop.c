// Fixture (#20, threads): a worker thread's hot loop calls a small function
// at every iteration (at -O0 its entry is a 1-byte `push %rbp`), and once
// every 2^20 iterations runs a rare line, while main waits in
// pthread_join. Prints "LAST TOTAL RARE" at the end: LAST = N - 1,
// TOTAL = N * (N - 1) / 2, RARE = the rare line's runs. A first argument
// replaces the iteration count N; a second, S, makes a system call every S
// iterations (a segment's last stretch, from its last event to the
// checkpoint, then spans at most S iterations).
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

long last, total, rare;
static long iterations = 20000000, syscall_every;

void bump(long i) {
  last = i; /* bump */
  total += i;
}

static void* hot(void* arg) {
  (void)arg;
  for (long i = 0; i < iterations; i++) { /* loop */
    bump(i); /* call */
    if ((i & 0xfffff) == 0)
      rare++; /* rare */
    if (syscall_every && i % syscall_every == 0) syscall(SYS_getppid);
  }
  return NULL; /* after */
}

int main(int argc, char** argv) {
  if (argc > 1) iterations = atol(argv[1]);
  if (argc > 2) syscall_every = atol(argv[2]);
  pthread_t t;
  pthread_create(&t, NULL, hot, NULL);
  pthread_join(t, NULL);
  printf("%ld %ld %ld\n", last, total, rare);
  return 0;
}
