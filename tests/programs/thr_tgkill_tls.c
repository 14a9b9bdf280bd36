// Fixture (threads): each of 3 threads sets its own thread-local value,
// then the main thread sends each one SIGUSR1 with tgkill; the handler
// records which TLS value it saw. Prints "tls 11 22 33" (fixed): a signal
// directed at a thread runs on that thread, with that thread's TLS.
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static __thread int mine;
static atomic_int seen[3], ready;
static pid_t tids[3];

static void on_usr1(int sig) {
  (void)sig;
  seen[mine / 11 - 1] = mine;
}

static void* worker(void* arg) {
  int i = (int)(long)arg;
  mine = 11 * (i + 1);
  tids[i] = (pid_t)syscall(SYS_gettid);
  atomic_fetch_add(&ready, 1);
  while (!atomic_load(&seen[i])) usleep(100);
  return NULL;
}

int main(void) {
  signal(SIGUSR1, on_usr1);
  pthread_t t[3];
  for (long i = 0; i < 3; i++) pthread_create(&t[i], NULL, worker, (void*)i);
  while (atomic_load(&ready) < 3) usleep(100);
  for (int i = 0; i < 3; i++) syscall(SYS_tgkill, getpid(), tids[i], SIGUSR1);
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  printf("tls %d %d %d\n", seen[0], seen[1], seen[2]);
  return 0;
}
