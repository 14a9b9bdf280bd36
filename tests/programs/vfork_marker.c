// Fixture (a vfork child recorded before its exec): the child writes a
// marker into a global it shares with its waiting parent, points stdout at
// stderr with dup2 and execs /bin/echo; the parent prints the marker it
// sees after the vfork returned.
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

volatile int marker = 0;

// Between the vfork and the exec: GDB breaks here in the child's replay.
__attribute__((noinline)) void in_child(int value) { marker = value; }

int main(void) {
  pid_t child = vfork();
  if (child == 0) {
    in_child(4242);
    dup2(2, 1);
    execl("/bin/echo", "echo", "vfork child", (char*)NULL);
    _exit(127);
  }
  int st = 0; /* after vfork */
  if (child < 0 || waitpid(child, &st, 0) != child) return 1;
  printf("vfork_marker: marker %d, child status %d\n", marker, WEXITSTATUS(st));
  return 0;
}
