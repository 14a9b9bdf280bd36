// Fixture (#20, threads): a worker thread runs a hand-written loop of
// 30,000,000 iterations whose head is a 3-byte store that no counter stub
// can hold, while main waits in pthread_join. A checkpoint taken just after
// the head (ticks often land after a store) has one way in, the head, which
// no stub counts: the reverse step from there must not single-step from the
// thread's resume. The label loop_head_next marks that instruction.
// Prints "STEP TOTAL" at the end.
#include <pthread.h>
#include <stdio.h>

#define N 30000000L
long step, total, spare;

static void* hot(void* arg) {
  long n = N;
  long* p = &step;
  __asm__ volatile(
      "xor %%eax, %%eax\n"
      "1: mov %%rax, (%1)\n"  // the loop head: 3 bytes
      ".globl loop_head_next\n"
      "loop_head_next: mov %%rax, total(%%rip)\n"  // reached only from the head
      "add $1, %%rax\n"
      "mov %%rax, spare(%%rip)\n"
      "cmp %0, %%rax\n"
      "jl 1b\n"
      :
      : "r"(n), "r"(p)
      : "rax", "memory", "cc");
  total += (long)arg; /* AFTER */
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, hot, (void*)1L);
  pthread_join(t, NULL);
  printf("%ld %ld\n", step, total);
  return 0;
}
