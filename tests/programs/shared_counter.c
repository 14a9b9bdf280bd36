// Fixture (members sharing memory): a parent and its forked child take
// turns on one MAP_SHARED page. First a ping-pong on an atomic `turn` word,
// each side spinning (no syscall) until it is its turn: the parent writes
// `value`, the child reads it (child_saw) and adds to it. Then both add 1 to
// `counter` ADDS times under a process-shared mutex (futex waits when they
// collide). Prints what the child saw and the final value and counter, the
// same in every run: `shared_counter ROUNDS ADDS`.
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

struct shared {
  atomic_int turn;  // 0: the parent's, 1: the child's
  int value;
  pthread_mutex_t mu;
  long counter;
};

static struct shared* sh;
static int seen[1000];

__attribute__((noinline)) void child_saw(int round, int v) { seen[round] = v; /* saw */ }

static void add(int adds) {
  for (int i = 0; i < adds; i++) {
    pthread_mutex_lock(&sh->mu);
    sh->counter++;
    pthread_mutex_unlock(&sh->mu);
  }
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 8;
  int adds = argc > 2 ? atoi(argv[2]) : 2000;
  if (rounds < 1 || rounds > 1000 || adds < 0) return 2;
  sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (sh == MAP_FAILED) return 1;
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
  pthread_mutex_init(&sh->mu, &a);
  pid_t p = fork();
  if (p < 0) return 1;
  if (p == 0) {
    for (int i = 0; i < rounds; i++) {
      while (atomic_load(&sh->turn) != 1) {
      }
      child_saw(i, sh->value);
      sh->value += 1000;
      atomic_store(&sh->turn, 0);
    }
    add(adds);
    printf("child saw");
    for (int i = 0; i < rounds; i++) printf(" %d", seen[i]);
    printf("\n");
    fflush(stdout);
    _exit(0);
  }
  for (int i = 0; i < rounds; i++) {
    while (atomic_load(&sh->turn) != 0) {
    }
    sh->value = sh->value * 3 + i;
    atomic_store(&sh->turn, 1);
  }
  while (atomic_load(&sh->turn) != 0) {
  }
  add(adds);
  int status = 0;
  waitpid(p, &status, 0);
  printf("parent: value %d, counter %ld, child exit %d\n", sh->value, sh->counter, WEXITSTATUS(status));
  return 0;
}
