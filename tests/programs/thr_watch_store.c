// Fixture (threads, watchpoints, #20): a worker thread spins about 0.2 s
// in a loop (an asm block) whose every instruction but the branch stores to
// table[i & 255] or is followed by such a store within 5 bytes, so the
// patch that reaches a checkpoint inside it moves a store to the table, and
// a watch on table[7] fires in the patch's trampoline. Each iteration i
// stores i, then i + 1 twice, into table[i & 255]; the main thread joins
// the worker and prints table[7].
#include <pthread.h>
#include <stdio.h>

#define N 200000000L
#define MASK 255L
long table[MASK + 1];

static void stores(long n) {
  __asm__ volatile(
      "xor %%eax, %%eax\n\t"
      "1:\n\t"
      "mov %%eax, %%edx\n\t"
      "and %k[mask], %%edx\n\t"
      "mov %%rax, (%[t],%%rdx,8)\n\t"
      "inc %%rax\n\t"
      "mov %%rax, (%[t],%%rdx,8)\n\t"
      "cmp %[n], %%rax\n\t"
      "mov %%rax, (%[t],%%rdx,8)\n\t"
      "jne 1b\n\t" /* STORE_LOOP */
      :
      : [t] "r"(table), [mask] "r"(MASK), [n] "r"(n)
      : "rax", "rdx", "cc", "memory");
}

static void* worker(void* arg) {
  (void)arg;
  stores(N);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  printf("table[7] %ld\n", table[7]);
  return 0;
}
