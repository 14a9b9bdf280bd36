// Fixture (recorder): a SIGALRM handler driven by setitimer (10 ms). The main
// loop computes between alarms and also waits in pause() and read() on a pipe
// nobody writes to, so alarms interrupt syscalls too. Prints a fixed line.
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t alarms;
static void on_alarm(int sig) { (void)sig; alarms++; }

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;  // no SA_RESTART: read() must see EINTR
  sigaction(SIGALRM, &sa, 0);
  struct itimerval it = {{0, 10000}, {0, 10000}};
  setitimer(ITIMER_REAL, &it, 0);
  int p[2];
  pipe(p);
  volatile unsigned long long x = 1;
  int eintr = 0;
  while (alarms < 30) {
    for (int i = 0; i < 200000; i++) x = x * 3 + 1;
    if (alarms % 3 == 0) pause();
    if (alarms % 5 == 1) {
      char c;
      if (read(p[0], &c, 1) < 0 && errno == EINTR) eintr = 1;
    }
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, 0);
  printf("rec_sigalrm got at least 30 alarms, read interrupted %d\n", eintr);
  return 0;
}
