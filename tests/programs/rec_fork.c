// Fixture (recorder): computes a little, then forks; the child runs unrecorded.
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  volatile unsigned long long x = 1;
  for (long i = 0; i < 20000000; i++) x = x * 3 + 1;
  printf("rec_fork forking\n");
  fflush(stdout);
  pid_t p = fork();
  if (p == 0) _exit(0);
  waitpid(p, 0, 0);
  printf("rec_fork done\n");
  return 0;
}
