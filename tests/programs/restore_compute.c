// Fixture for restore: a CPU-bound loop that keeps all of its state in memory
// (heap array, TLS counter, a double, stack locals) and writes only at the end,
// so a checkpoint taken mid-loop and restored must print exactly what a native
// run prints. It also holds state restore must bring back: a data file read
// half-way (fd offset), a SIGUSR1 handler, SIGUSR2 blocked and pending (its
// handler runs only when it is unblocked at the end), the cwd, and a pipe
// (made again by restore: a byte written at the end is read back).
// usage: restore_compute ITERATIONS [DATAFILE]; exit status 3 + checksum % 100.
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static __thread unsigned long tls_steps;
static volatile sig_atomic_t handler_ran;

static volatile sig_atomic_t usr2_handled;

static void on_usr1(int signo) { handler_ran += signo == SIGUSR1; }
static void on_usr2(int signo) { usr2_handled += signo == SIGUSR2; }

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 300000000L;
  int data = argc > 2 ? open(argv[2], O_RDONLY) : -1;
  char head[11] = {0}, tail[11] = {0};
  if (data >= 0 && read(data, head, 10) != 10) return 90;
  int pipefd[2];
  if (pipe(pipefd) != 0) return 91;

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR2);
  sigprocmask(SIG_BLOCK, &block, NULL);
  sa.sa_handler = on_usr2;
  sigaction(SIGUSR2, &sa, NULL);
  raise(SIGUSR2);  // stays pending while blocked

  enum { kWords = 1 << 18 };  // 2 MiB of heap state
  unsigned long long* heap = calloc(kWords, sizeof *heap);
  unsigned long long x = 1, checksum = 0;
  double fp = 0.5;
  for (long i = 0; i < n; i++) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    heap[(x >> 20) % kWords] += x >> 33;
    checksum += heap[i % kWords] ^ (x >> 29);
    fp = fp * 1.0000001 + (double)(x & 0xff) * 1e-9;
    tls_steps++;
  }

  raise(SIGUSR1);
  sigset_t now, pending;
  sigprocmask(SIG_BLOCK, NULL, &now);
  sigpending(&pending);
  int usr2_pending = sigismember(&pending, SIGUSR2);
  sigprocmask(SIG_UNBLOCK, &block, NULL);  // delivers the pending SIGUSR2
  if (data >= 0 && read(data, tail, 10) != 10) return 92;
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) return 93;
  char piped = '-';
  if (write(pipefd[1], "p", 1) != 1 || read(pipefd[0], &piped, 1) != 1) piped = '!';
  printf("checksum %llu fp %.6f tls %lu handler %d usr2-blocked %d usr2-pending %d usr2-handled %d head %s tail %s cwd %s "
         "pipe %c\n",
         checksum, fp, tls_steps, (int)handler_ran, sigismember(&now, SIGUSR2), usr2_pending, (int)usr2_handled, head,
         tail, cwd, piped);
  return 3 + (int)(checksum % 100);
}
