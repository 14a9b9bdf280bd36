// Fixture (threads, signals): a process-directed SIGCHLD that the kernel
// hands to a thread blocked in futex (pthread_cond_wait). The main thread
// blocks SIGCHLD, so the worker is the only thread that can take it; the
// worker waits on a condition variable while the main thread lets ROUNDS
// children (forked before the thread, each blocked reading a pipe) exit one
// at a time and reaps each with waitpid (after a short busy loop every
// other round). Usage:
//   thr_sigchld handler|default [ROUNDS]
// handler: SIGCHLD runs a counting handler (SA_RESTART, so the wait goes on);
// default: SIG_DFL, whose action is to ignore it. Prints a fixed line.
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, done;
static volatile sig_atomic_t caught;

static void on_chld(int sig) { (void)sig; caught++; }

static void* worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  ready = 1;
  pthread_cond_broadcast(&cv);
  while (!done) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  return NULL;
}

int main(int argc, char** argv) {
  const int handler = argc > 1 && strcmp(argv[1], "handler") == 0;
  int rounds = argc > 2 ? atoi(argv[2]) : 5;
  if (rounds > 64) rounds = 64;
  if (handler) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_chld;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGCHLD, &sa, 0);
  }
  // The children are forked while the process has one thread; each exits
  // once it reads a byte.
  int go[2];
  if (pipe(go) != 0) return 1;
  for (int i = 0; i < rounds; i++) {
    pid_t c = fork();
    if (c == 0) {
      char b;
      close(go[1]);
      _exit(read(go[0], &b, 1) == 1 ? 7 : 1);
    }
  }
  close(go[0]);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &chld, NULL);  // only the worker takes it
  pthread_mutex_lock(&mu);
  while (!ready) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  int reaped = 0;
  for (int i = 0; i < rounds; i++) {
    if (write(go[1], "x", 1) != 1) break;
    // Busy on odd rounds: the child's exit finds the main thread running
    // (the recorder runs one thread at a time) or waiting in wait4.
    if (i % 2)
      for (volatile int k = 0; k < 300000; k++) {
      }
    int st;
    if (waitpid(-1, &st, 0) > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 7) reaped++;
  }
  pthread_mutex_lock(&mu);
  done = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
  pthread_join(t, NULL);
  // With a handler the worker ran it at least once (signals merge, so how
  // often varies); with SIG_DFL never.
  printf("thr_sigchld %s: reaped %d of %d, handler ran: %s\n", handler ? "handler" : "default", reaped, rounds,
         caught > 0 ? "yes" : "no");
  return 0;
}
