// Fixture (a vfork child recorded before its exec): the parent writes a page
// of its own right before its vfork; the child writes a marker into a global
// it shares with its waiting parent, spins ARGV[1] iterations (ticks of the
// child, in the parent's memory), points stdout at stderr with dup2 and
// execs /bin/echo; the parent prints what it sees after the vfork returned.
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

volatile int marker = 0;
volatile unsigned long spun = 0;
// A page only the parent writes, after its last checkpoint before the vfork:
// its next checkpoint must hold it although the child ran in between.
volatile int parent_page[1024] __attribute__((aligned(4096)));

// Between the vfork and the exec: GDB breaks here in the child's replay.
__attribute__((noinline)) void in_child(int value) { marker = value; }

int main(int argc, char** argv) {
  const long spin = argc > 1 ? atol(argv[1]) : 0;
  parent_page[0] = 7;
  pid_t child = vfork();
  if (child == 0) {
    in_child(4242);
    for (long i = 0; i < spin; i++) spun += 1;
    dup2(2, 1); /* before exec */
    execl("/bin/echo", "echo", "vfork child", (char*)NULL);
    _exit(127);
  }
  int st = 0; /* after vfork */
  if (child < 0 || waitpid(child, &st, 0) != child) return 1;
  printf("vfork_marker: marker %d, spun %lu, parent page %d, child status %d\n", marker, spun, parent_page[0],
         WEXITSTATUS(st));
  return 0;
}
