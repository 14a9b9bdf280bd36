// Timeline fixture: a synchronous SIGSEGV. Prints the faulting function's
// address, runs a little, then writes through a bad pointer in tl_fault().
// With argument "handle" a SIGSEGV handler prints "handled" and exits with
// status 3; without it the program dies by SIGSEGV.
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void on_segv(int sig) {
  (void)sig;
  static const char msg[] = "handled\n";
  if (write(1, msg, sizeof msg - 1) < 0) _exit(4);
  _exit(3);
}

__attribute__((noinline)) void tl_fault(volatile int* p) { *p = 42; }

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "handle") == 0) signal(SIGSEGV, on_segv);
  char buf[64];
  int len = snprintf(buf, sizeof buf, "tl_fault=%p\n", (void*)&tl_fault);
  if (write(1, buf, len) != len) return 1;
  for (int i = 0; i < 3; i++) usleep(1000);
  tl_fault((volatile int*)16);
  return 0;
}
