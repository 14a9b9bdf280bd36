// Fixture (GDB fork stops with threads): while a worker thread counts, the
// main thread forks a child that exits with status 4, waits for it and
// passes the status to after_fork, whose argument GDB prints.
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long counted;
int total;

static void* count(void* arg) {
  (void)arg;
  for (long i = 0; i < 2000000; i++) counted = counted + 1;
  return NULL;
}

__attribute__((noinline)) void after_fork(int status) { total += status; }

int main(void) {
  pthread_t worker;
  if (pthread_create(&worker, NULL, count, NULL) != 0) return 1;
  const pid_t child = fork();
  if (child == 0) _exit(4);
  int st = 0;
  if (waitpid(child, &st, 0) != child) return 2;
  after_fork(WEXITSTATUS(st));
  pthread_join(worker, NULL);
  printf("thr_fork: child %d, status %d, counted %ld\n", (int)child, total, counted);
  return 0;
}
