/* Fixture for e2e_replay_gdb_late_reserve: spins over a few checkpoints,
 * then reserves 1 GiB of address space (as glibc's arenas and Go's heap
 * do: PROT_NONE, MAP_NORESERVE), which the kernel places right below the
 * libraries, touches a page of it, spins again and exits. Replay must not
 * have put a page of its own in that range beforehand (a counter stub for
 * a breakpoint in libc sits half a GiB below it).
 * usage: late_reserve [ROUNDS [thread]]  ("thread": all of it in a worker) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

volatile unsigned long late_reserve_sink;
static long rounds = 30000000;

static void spin(long n) {
  for (long i = 0; i < n; i++) late_reserve_sink += (unsigned long)i;
}

static void* work(void* arg) {
  spin(rounds);
  size_t len = 1ul << 30;
  char* p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) exit(2);
  if (mprotect(p + (len >> 1), 4096, PROT_READ | PROT_WRITE) != 0) exit(3);
  p[len >> 1] = 1;
  spin(rounds);
  return arg;
}

int main(int argc, char** argv) {
  if (argc > 1) rounds = atol(argv[1]);
  if (argc > 2 && strcmp(argv[2], "thread") == 0) {
    pthread_t t;
    if (pthread_create(&t, NULL, work, NULL) != 0) return 4;
    pthread_join(t, NULL);
  } else {
    work(NULL);
  }
  printf("late_reserve: done\n");
  return 0;
}
