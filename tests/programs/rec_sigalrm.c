// Fixture (recorder): a SIGALRM handler driven by setitimer (10 ms). The main
// loop computes between alarms and also waits in pause() and, three times, in
// read() on a pipe nobody writes to, so alarms interrupt syscalls too: each
// read can only end by failing with EINTR. Prints a fixed line however fast
// the alarms come relative to the loop (a recorder taking slow checkpoints
// runs the handler several times before the program moves on).
// `rec_sigalrm US`: the timer's period in microseconds (a signal storm at 1000).
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t alarms;
static void on_alarm(int sig) { (void)sig; alarms++; }

int main(int argc, char** argv) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;  // no SA_RESTART: read() must see EINTR
  sigaction(SIGALRM, &sa, 0);
  const long us = argc > 1 ? atol(argv[1]) : 10000;
  struct itimerval it = {{0, us}, {0, us}};
  setitimer(ITIMER_REAL, &it, 0);
  int p[2];
  pipe(p);
  volatile unsigned long long x = 1;
  int reads = 0, eintr = 0;
  while (alarms < 30 || reads < 3) {
    for (int i = 0; i < 200000; i++) x = x * 3 + 1;
    if (alarms % 3 == 0) pause();
    if (reads < 3 && alarms >= 5 * reads + 1) {
      char c;
      reads++;
      if (read(p[0], &c, 1) < 0 && errno == EINTR) eintr++;
    }
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, 0);
  printf("rec_sigalrm got at least 30 alarms, %d reads, %d interrupted\n", reads, eintr);
  return 0;
}
