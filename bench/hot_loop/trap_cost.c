// What one visit of a trapped pc costs on this machine (docs/performance.md,
// ### hot loops): a plain loop, the same loop under a perf hardware execution
// breakpoint (the #DB of the BPF conditional breakpoint, without BPF or
// signal) and under a uprobe (int3 plus single step out of line), with the
// thread's task clock beside wall time. Needs perf_event_paranoid <= 1 or root.
#define _GNU_SOURCE
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

__attribute__((noinline)) void visit(volatile unsigned long *x) { *x = *x * 3 + 1; }

static int open_event(struct perf_event_attr *a) {
  return (int)syscall(SYS_perf_event_open, a, 0, -1, -1, 0);
}

static long long task_clock(int fd) {
  long long v = 0;
  if (read(fd, &v, sizeof v) != sizeof v) return -1;
  return v;
}

static void run(const char *what, int n, int clock) {
  volatile unsigned long x = 1;
  long long c0 = task_clock(clock);
  double t0 = now();
  for (int i = 0; i < n; i++) visit(&x);
  double t1 = now();
  long long c1 = task_clock(clock);
  printf("%-22s %10.3f us/visit wall, %8.3f us/visit task clock\n", what, (t1 - t0) / n * 1e6, (c1 - c0) / 1e3 / n);
}

// The file offset of visit() in our executable, for the uprobe.
static unsigned long visit_offset(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  unsigned long off = 0;
  while (f && fgets(line, sizeof line, f)) {
    unsigned long lo, hi, fo;
    char perm[8];
    if (sscanf(line, "%lx-%lx %7s %lx", &lo, &hi, perm, &fo) == 4 && (uintptr_t)visit >= lo && (uintptr_t)visit < hi)
      off = (uintptr_t)visit - lo + fo;
  }
  if (f) fclose(f);
  return off;
}

int main(void) {
  struct perf_event_attr c;
  memset(&c, 0, sizeof c);
  c.type = PERF_TYPE_SOFTWARE;
  c.size = sizeof c;
  c.config = PERF_COUNT_SW_TASK_CLOCK;
  int clock = open_event(&c);
  if (clock < 0) { perror("perf_event_open(task clock)"); return 1; }
  run("plain", 10000000, clock);

  struct perf_event_attr b;
  memset(&b, 0, sizeof b);
  b.type = PERF_TYPE_BREAKPOINT;
  b.size = sizeof b;
  b.bp_type = HW_BREAKPOINT_X;
  b.bp_addr = (uintptr_t)visit;
  b.bp_len = sizeof(long);
  b.exclude_kernel = b.exclude_hv = 1;
  int bp = open_event(&b);
  if (bp < 0) { perror("perf_event_open(breakpoint)"); return 1; }
  run("hardware breakpoint", 100000, clock);
  close(bp);

  FILE *t = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
  int type = -1;
  if (!t || fscanf(t, "%d", &type) != 1) { printf("no uprobe PMU\n"); return 0; }
  fclose(t);
  char exe[4096];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len < 0) return 1;
  exe[len] = 0;
  struct perf_event_attr u;
  memset(&u, 0, sizeof u);
  u.type = (unsigned)type;
  u.size = sizeof u;
  u.config1 = (uintptr_t)exe;
  u.config2 = visit_offset();
  int up = open_event(&u);
  if (up < 0) { perror("perf_event_open(uprobe)"); return 0; }
  run("uprobe", 100000, clock);
  return 0;
}
