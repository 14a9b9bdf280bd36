// Fixture (threads, watchpoints, #20): a worker thread runs a loop of short
// instructions (none 5 bytes long, no padding within a short jump: built
// -O0, functions are not aligned) for about 0.2 s; in one iteration deep
// inside (i == K) its store hits `watched`, in every other one a dummy
// word. A counter stub for the store's arrivals cannot hold the jump in one
// instruction: before, the moment before that store was searched by single
// steps from the worker's last resume (tens of millions of instructions
// back) and the reverse watch failed.
#include <pthread.h>
#include <stdio.h>

#define N 120000000L
#define K 77777777L
long watched;
long dummy;

static void loop(long n, long k) {
  __asm__ volatile( /* WATCH_SHORT_ASM */
      "xor %%eax, %%eax\n\t"
      "1:\n\t"
      "mov %[d], %%rdi\n\t"
      "cmp %[k], %%rax\n\t"
      "cmove %[w], %%rdi\n\t"
      "mov %%rax, (%%rdi)\n\t"
      "inc %%rax\n\t"
      "cmp %[n], %%rax\n\t"
      "jne 1b\n\t"
      :
      : [w] "r"(&watched), [d] "r"(&dummy), [k] "r"(k), [n] "r"(n)
      : "rax", "rdi", "cc", "memory");
}

static void* worker(void* arg) {
  (void)arg;
  loop(N, K);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  printf("watched %ld dummy %ld\n", watched, dummy); /* WATCH_SHORT_READ */
  return 0;
}
