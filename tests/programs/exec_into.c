/* Fixture for tests/e2e/test_replay_gdb_exec.sh: runs a function of its own,
 * then execs the program named by argv[1] (another fixture) with argv[1..]. */
#include <stdio.h>
#include <unistd.h>

int before_exec(int x) { return x * 2; }

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  int v = before_exec(21);
  printf("exec_into %d\n", v);
  fflush(stdout);
  execv(argv[1], argv + 1); /* EXEC */
  perror("execv");
  return 1;
}
