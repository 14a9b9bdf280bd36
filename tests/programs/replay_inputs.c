/* Replay fixture: every kind of input a segment can hold: file I/O, rdtsc,
 * rdtscp, clock_gettime (through the vDSO), /dev/urandom, SIGALRM from
 * setitimer (armed, firing during a sleep), and short compute bursts between 2 ms
 * sleeps so that 10 ms checkpoints fall both at syscalls and in user code.
 * Prints a digest of everything it saw. argv[1]: a scratch file path. */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static volatile sig_atomic_t alarms;
static void on_alarm(int sig) { (void)sig; alarms++; }
static uint64_t digest = 1469598103934665603ull;
static void mix(uint64_t v) { digest = (digest ^ v) * 1099511628211ull; }

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "/tmp/replay_inputs.txt";
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) { perror("open"); return 1; }
  if (write(fd, "hello replay\n", 13) != 13) return 1;
  close(fd);
  char buf[64] = {0};
  fd = open(path, O_RDONLY);
  ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  for (ssize_t i = 0; i < n; i++) mix((unsigned char)buf[i]);

  unsigned char rnd[16];
  fd = open("/dev/urandom", O_RDONLY);
  if (read(fd, rnd, sizeof rnd) != sizeof rnd) return 1;
  close(fd);
  for (int i = 0; i < 16; i++) mix(rnd[i]);

  signal(SIGALRM, on_alarm);
  struct itimerval it = {{0, 0}, {0, 3000}};
  setitimer(ITIMER_REAL, &it, NULL);
  for (int round = 0; round < 12; round++) {
    unsigned aux;
    mix(__rdtsc());
    mix(__rdtscp(&aux));
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    mix((uint64_t)ts.tv_nsec);
    volatile uint64_t acc = round;
    for (int i = 0; i < 20000; i++) acc = acc * 6364136223846793005ull + 1442695040888963407ull;
    mix(acc);
    struct timespec nap = {0, 2000000};
    nanosleep(&nap, NULL);
  }
  mix(alarms);
  printf("replay_inputs: digest %016llx alarms %d\n", (unsigned long long)digest, (int)alarms);
  return 0;
}
