/* Fixture for tests/e2e/test_replay_gdb_reverse_steps.sh: short nested calls
 * without syscalls in between, so GDB's own `record full` can run it too and
 * both reverse executions can be compared step by step. */
#include <stdio.h>

int travel_steps_done;

static int travel_leaf(int v) {
  int r = v * 3;
  r += 1;
  return r;
}

static int travel_middle(int v) {
  int a = travel_leaf(v);
  int b = travel_leaf(a);
  return a + b;
}

int main(void) {
  int total = 0;
  for (int i = 0; i < 3; i++) {
    total += travel_middle(i);
  }
  travel_steps_done = total; /* STEPS_END */
  printf("travel_steps: %d\n", travel_steps_done);
  return 0;
}
