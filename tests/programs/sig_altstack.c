// Fixture (signals on an alternate stack): the program spins on a tiny
// stack of its own (makecontext, 512 bytes, with a canary region right
// below it) while an itimer's SIGALRM runs a handler installed with
// SA_ONSTACK on a sigaltstack elsewhere: a Go goroutine on its small stack,
// preempted by SIGURG, in a few lines. The kernel puts such a frame on the
// alternate stack only; nothing may write below the tiny stack.
// Prints whether every handler ran on the alternate stack and whether the
// canary is intact, then "altstack done".
// usage: sig_altstack [ALARMS] (default 60, one per millisecond)
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <ucontext.h>

enum { kCanary = 4096, kTinyStack = 512, kAltStack = 65536 };

static unsigned char region[kCanary + kTinyStack] __attribute__((aligned(64)));
static unsigned char alt[kAltStack] __attribute__((aligned(64)));
static volatile int alarms, on_alt, off_alt, wanted;
static volatile unsigned long spins;
static ucontext_t main_ctx, tiny_ctx;

static void on_alarm(int sig) {
  (void)sig;
  unsigned char here;
  if (&here >= alt && &here < alt + sizeof alt) on_alt++;
  else off_alt++;
  alarms++;
}

// Runs on the tiny stack: no calls, so it needs only its return address.
static void spin(void) {
  while (alarms < wanted) spins++;
}

int main(int argc, char** argv) {
  wanted = argc > 1 ? atoi(argv[1]) : 60;
  memset(region, 0xa5, kCanary);
  stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0};
  if (sigaltstack(&ss, NULL) != 0) return perror("sigaltstack"), 1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_ONSTACK | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGALRM, &sa, NULL) != 0) return perror("sigaction"), 1;
  getcontext(&tiny_ctx);
  tiny_ctx.uc_stack.ss_sp = region + kCanary;
  tiny_ctx.uc_stack.ss_size = kTinyStack;
  tiny_ctx.uc_link = &main_ctx;
  makecontext(&tiny_ctx, spin, 0);
  struct itimerval it = {{0, 1000}, {0, 1000}};
  setitimer(ITIMER_REAL, &it, NULL);
  swapcontext(&main_ctx, &tiny_ctx);
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  size_t bad = 0;
  for (size_t i = 0; i < kCanary; i++) bad += region[i] != 0xa5;
  printf("handlers on the alternate stack: %s\n", off_alt == 0 && on_alt > 0 ? "all" : "NOT ALL");
  printf("canary below the tiny stack: %s\n", bad == 0 ? "intact" : "OVERWRITTEN");
  printf("altstack done\n");
  return bad != 0 || off_alt != 0;
}
