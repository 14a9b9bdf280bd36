// Fixture (GDB fork stops): forks a child that exits with status 3, then
// vforks one that execs /bin/true; after each the parent calls after_fork,
// whose argument GDB prints, and keeps both children's pids in globals.
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

pid_t forked = -1, vforked = -1;
int statuses = 0;

__attribute__((noinline)) void after_fork(int which) { statuses += which; }

int main(void) {
  int st = 0;
  forked = fork();
  if (forked == 0) _exit(3);
  after_fork(1);
  if (waitpid(forked, &st, 0) != forked) return 1;
  vforked = vfork();
  if (vforked == 0) {
    execl("/bin/true", "true", (char*)NULL);
    _exit(127);
  }
  after_fork(WEXITSTATUS(st) * 10);
  if (waitpid(vforked, &st, 0) != vforked) return 2;
  printf("fork_stops: children %d and %d, statuses %d\n", (int)forked, (int)vforked, statuses);
  return 0;
}
