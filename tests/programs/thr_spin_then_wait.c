// Fixture (threads, a checkpoint where every thread waits): a worker waits
// on a condition variable; a child process sleeps, then writes one byte to a
// pipe. The main thread computes for a while without a system call (ticks
// land there) and then reads the pipe, blocking until the child writes:
// ticks then find every thread waiting in a call, so the segment from the
// last tick in the loop to the read holds no event. Prints a fixed line.
// Usage: thr_spin_then_wait [ROUNDS]  (loop iterations in millions, default 40)
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, done;

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
  const long rounds = (argc > 1 ? atol(argv[1]) : 40) * 1000000L;
  int p[2];
  if (pipe(p) != 0) return 1;
  pid_t child = fork();
  if (child == 0) {
    close(p[0]);
    struct timespec ts = {0, 400 * 1000 * 1000};  // longer than the loop takes recorded
    nanosleep(&ts, NULL);
    _exit(write(p[1], "x", 1) == 1 ? 0 : 1);
  }
  close(p[1]);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_mutex_lock(&mu);
  while (!ready) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  volatile unsigned long sum = 0;
  for (long i = 0; i < rounds; i++) sum += (unsigned long)i ^ (sum >> 3);
  char b = 0;
  const long got = read(p[0], &b, 1);
  pthread_mutex_lock(&mu);
  done = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
  pthread_join(t, NULL);
  int st = 0;
  waitpid(child, &st, 0);
  printf("thr_spin_then_wait: read %ld byte '%c', child status %d, sum %s\n", got, b, WEXITSTATUS(st),
         sum ? "nonzero" : "zero");
  return 0;
}
