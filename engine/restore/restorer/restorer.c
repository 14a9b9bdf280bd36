// The restorer: an executable with nothing in it but a way to stop. restore
// (engine/restore) starts it under ptrace and takes over at its execve stop;
// from then on everything happens through syscalls injected from the
// injection page, so this code normally never runs. If it does run (nobody is
// tracing it), it stops itself and then exits with a distinctive status.
//
// Static, -nostdlib, linked far from where programs live (see CMakeLists.txt),
// so its own pages cannot overlap a recorded mapping while it is torn down.
#include <asm/unistd.h>
#include <signal.h>

static long raw_syscall2(long nr, long a, long b) {
  long ret;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b) : "rcx", "r11", "memory");
  return ret;
}

__attribute__((noreturn)) void _start(void) {
  long pid = raw_syscall2(__NR_getpid, 0, 0);
  raw_syscall2(__NR_kill, pid, SIGSTOP);
  for (;;) raw_syscall2(__NR_exit_group, 127, 0);
}
