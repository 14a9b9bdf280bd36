// Fixture (children): posix_spawn (glibc's clone(CLONE_VM|CLONE_VFORK), whose
// child writes into the parent's memory before it execs) and system() (the
// same, through /bin/sh). Prints what the children reported.
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

int spawn_status = -1;
int system_status = -1;

int main(void) {
  pid_t pid;
  char* argv[] = {"/bin/sh", "-c", "echo spawned; exit 5", NULL};
  if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0) return 1;
  if (waitpid(pid, &spawn_status, 0) != pid) return 2;
  fflush(stdout);
  system_status = system("echo from system; exit 3");
  printf("spawn exit %d, system exit %d\n", WEXITSTATUS(spawn_status), WEXITSTATUS(system_status));
  return 0;
}
