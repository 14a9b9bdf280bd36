// Fixture for core dumps and backtraces: a known call chain
// main -> dump_alpha -> dump_beta -> dump_gamma with known values on the
// stack, in the heap and in globals at its deepest point.
//   dump_chain stop     : raises SIGSTOP inside dump_gamma (live-process tests)
//   dump_chain steps    : marks three points by raising SIGUSR2 (a no-op handler;
//                         under `slsdbg record` each is a checkpoint): in main
//                         before dump_alpha (counter 7), in dump_beta before
//                         dump_gamma (node allocated, counter 7), in dump_gamma
//                         (counter 49), then exits 0
//   dump_chain signal   : dump_gamma raises SIGUSR1; its handler dump_on_signal
//                         marks a point the same way (a stack through a signal
//                         frame), then exits 0
//   dump_chain spin N   : spins N iterations inside pause_here (recorded: the
//                         recorder's 10 ms ticks land inside the chain), then exits 0
//   dump_chain sleep MS : sleeps MS milliseconds inside dump_gamma, then exits 0
//                         (recorded: every checkpoint in the sleep is inside the chain)
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct dump_node {
  long id;
  char name[16];
};

long dump_global_counter = 7;
struct dump_node* dump_heap_node;

static void ignore_mark(int sig) { (void)sig; }

// A known point: a signal the recorder checkpoints at, harmless natively (a
// macro, so that no frame of its own shows in the backtraces).
#define MARK() (signal(SIGUSR2, ignore_mark), raise(SIGUSR2))

__attribute__((noinline)) static void dump_on_signal(int sig) {
  volatile int handler_marker = 77 + sig - SIGUSR1;  // 77
  MARK();
  (void)handler_marker;
}

static void pause_here(const char* mode, long ms) {
  if (strcmp(mode, "signal") == 0) {
    signal(SIGUSR1, dump_on_signal);
    raise(SIGUSR1);
    return;
  }
  if (strcmp(mode, "spin") == 0) {
    for (volatile long i = 0; i < ms; i++) {
    }
    return;
  }
  if (strcmp(mode, "stop") == 0) {
    raise(SIGSTOP);
    return;
  }
  if (strcmp(mode, "steps") == 0) {
    MARK();
    return;
  }
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

__attribute__((noinline)) int dump_gamma(const char* mode, long ms, int depth) {
  int answer = 40 + depth;          // 42: called at depth 2
  double ratio = 2.5;
  char word[16] = "checkpoint";
  dump_global_counter += answer;    // 49
  pause_here(mode, ms);
  return answer + (int)ratio + word[0];
}

__attribute__((noinline)) int dump_beta(const char* mode, long ms, int depth) {
  int beta_local = 1000 + depth;    // 1001
  if (strcmp(mode, "steps") == 0) MARK();
  return dump_gamma(mode, ms, depth + 1) + beta_local;
}

__attribute__((noinline)) int dump_alpha(const char* mode, long ms) {
  dump_heap_node = malloc(sizeof *dump_heap_node);
  dump_heap_node->id = 123456789;
  strcpy(dump_heap_node->name, "heap-node");
  return dump_beta(mode, ms, 1);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "sleep";
  long ms = argc > 2 ? atol(argv[2]) : 500;
  if (strcmp(mode, "steps") == 0) MARK();
  int r = dump_alpha(mode, ms);
  free(dump_heap_node);
  return r == 0;  // never 0: exit status 0
}
