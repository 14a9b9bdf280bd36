/* Fixture for bench/travel/goals.py (the #20 goal table): goal_once() runs
 * once at the start, then a CPU-bound loop without syscalls runs argv[1]
 * rounds (about 20 instructions each at -O0). With argv[2] = "crash" the
 * program then writes through a null pointer and dies of SIGSEGV, so the
 * crash lies within one checkpoint interval after the last tick. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile unsigned long long goal_sink;

__attribute__((noinline)) void goal_once(void) { goal_sink = 1; /* GOAL_ONCE */ }

__attribute__((noinline)) void goal_crash(volatile unsigned long long* p) { *p = goal_sink; /* GOAL_CRASH */ }

int main(int argc, char** argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 1000000;
  int crash = argc > 2 && strcmp(argv[2], "crash") == 0;
  goal_once();
  unsigned long long x = goal_sink;
  for (long i = 0; i < rounds; i++) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  goal_sink = x;
  if (crash) goal_crash((volatile unsigned long long*)(unsigned long)(x & 0)); /* GOAL_CALL */
  printf("goal_cpu: %llu\n", goal_sink);
  return 0;
}
