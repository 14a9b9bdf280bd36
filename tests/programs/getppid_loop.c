// getppid() 40 times with a counter and a short spin between calls: with
// 1 ms checkpoints, some land at the exit stop of getppid's `syscall`, so a
// checkpoint's own pc is __getppid+7, and some segments end their log with
// that call (e2e_replay_gdb_checkpoint_pc_break). Prints the counter of
// each call: the trace a debugger's stops at __getppid+7 must match.
#include <stdio.h>
#include <unistd.h>

volatile int counter;

int main(void) {
  for (counter = 0; counter < 40; counter++) {
    getppid();
    printf("call %d\n", counter);  // buffered: written at exit, no syscall here
    for (volatile int i = 0; i < 200000; i++) {
    }
  }
  return 0;
}
