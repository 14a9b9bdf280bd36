// Fixture (children): forks a child that writes into a pipe and exits with
// status 7; the parent reads the bytes, waits for the child and prints both.
// The child runs unrecorded: what it sent reaches the parent through the
// logged read and wait4. GDB checks `got` and `child_status` at the end.
// The child reads the time-stamp counter, which the recorded parent cannot
// (it traps): the child's must work.
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>

char got[64];
int child_status = -1;

int main(void) {
  int fds[2];
  if (pipe(fds) != 0) return 1;
  pid_t child = fork();
  if (child < 0) return 2;
  if (child == 0) {
    close(fds[0]);
    const unsigned long long t0 = __rdtsc();
    char msg[32];
    int n = snprintf(msg, sizeof msg, "child says %d", 6 * 7 + (__rdtsc() < t0));
    if (write(fds[1], msg, (size_t)n) != n) _exit(1);
    _exit(7);
  }
  close(fds[1]);
  size_t len = 0;
  for (ssize_t n; (n = read(fds[0], got + len, sizeof got - 1 - len)) > 0;) len += (size_t)n;
  if (waitpid(child, &child_status, 0) != child) return 3;
  printf("read '%s', child exit %d\n", got, WEXITSTATUS(child_status));
  return 0;
}
