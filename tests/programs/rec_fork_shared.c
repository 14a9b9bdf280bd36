// Fixture (recorder): writable MAP_SHARED memory, then a fork; the child
// writes it and the parent prints what it reads after waiting for the child
// (members with shared memory run in turns: recorder/record/shared_turn.h).
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  volatile int* shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) return 1;
  printf("rec_fork_shared forking\n");
  fflush(stdout);
  pid_t p = fork();
  if (p == 0) {
    *shared = 42;
    _exit(0);
  }
  waitpid(p, 0, 0);
  printf("rec_fork_shared: child wrote %d\n", *shared);
  return 0;
}
