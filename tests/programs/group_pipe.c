// Fixture (process tree, group cuts): the parent sends the numbers 1..N
// through a pipe to its forked child, working a little between writes; the
// child reads them. `sent` is set before each write and `got` after each
// read, so at any one moment got <= sent. A test reads both at each
// consistent cut of the recording (the parent's and the child's checkpoint
// in the cut): got must never exceed sent.
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

volatile unsigned long sent;  // the parent's: the last number it began to write
volatile unsigned long got;   // the child's: the last number it read

static void work(void) {
  for (volatile int i = 0; i < 20000; i++) {
  }
}

int main(int argc, char** argv) {
  const unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 3000;
  int fds[2];
  if (pipe(fds) != 0) return 1;
  pid_t child = fork();
  if (child < 0) return 2;
  if (child == 0) {
    close(fds[1]);
    unsigned long v;
    while (read(fds[0], &v, sizeof v) == (ssize_t)sizeof v) {
      got = v;
      work();
    }
    _exit(got == n ? 0 : 3);
  }
  close(fds[0]);
  for (unsigned long v = 1; v <= n; v++) {
    sent = v;
    if (write(fds[1], &v, sizeof v) != (ssize_t)sizeof v) return 4;
    work();
  }
  close(fds[1]);
  int status = 0;
  waitpid(child, &status, 0);
  printf("sent %lu, child exit %d\n", sent, WEXITSTATUS(status));
  return 0;
}
